use concur_threadpool::config::Config;
use std::process::ExitCode;

fn main() -> ExitCode {
    let result = Config::from_env().and_then(|config| concur_threadpool::run(config).map_err(|e| e.to_string()));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("concur-threadpool: {e}");
            ExitCode::from(2)
        }
    }
}
