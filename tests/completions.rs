//! `concur completions SHELL` prints a script that names the subcommands;
//! bash, which is here, loads the bash one and completes with it.

use crate::tools;

use std::process::Command;

fn completions(shell: &str) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_concur")).args(["completions", shell]).output().unwrap();
    assert!(out.status.success(), "concur completions {shell}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn every_shell_gets_a_script_naming_the_subcommands() {
    for shell in ["bash", "zsh", "fish"] {
        let script = completions(shell);
        let words: Vec<&str> = script.split(|c: char| !c.is_ascii_alphanumeric() && c != '-').collect();
        for word in ["run", "report", "verify", "completions"] {
            assert!(words.contains(&word), "the {shell} script does not name the subcommand {word}");
        }
        assert!(script.contains("export-csv") && script.contains("keepalive"), "the {shell} script lacks the flags of report and run");
    }
}

#[test]
fn bash_loads_the_script_and_completes_subcommands_and_flags() {
    let Some(bash) = tools::require(&tools::BASH) else { return };
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("concur.bash");
    std::fs::write(&file, completions("bash")).unwrap();
    let syntax = Command::new(&bash).arg("-n").arg(&file).output().unwrap();
    assert!(syntax.status.success(), "bash -n: {}", String::from_utf8_lossy(&syntax.stderr));
    // `_concur` is given (command, word, previous word) as bash's `complete -F` would give them.
    let script = r#"source "$1" && complete -p concur &&
        COMP_WORDS=(concur re) COMP_CWORD=1 && _concur concur re concur && echo "words: ${COMPREPLY[*]}" &&
        COMP_WORDS=(concur report --exp) COMP_CWORD=2 && _concur concur --exp report && echo "flags: ${COMPREPLY[*]}""#;
    let out = Command::new(&bash).args(["-c", script, "bash"]).arg(&file).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("-F _concur concur"), "{text}");
    assert!(text.contains("words: report\n"), "{text}");
    assert!(text.contains("flags: --export-json --export-csv\n"), "{text}");
}
