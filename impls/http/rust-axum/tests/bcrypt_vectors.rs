//! spec/bcrypt-vectors.json: every hash, `$2a$` and `$2b$`, verifies against
//! its password with the `bcrypt` crate exactly as the file says, so a hash
//! made by any other implementation verifies here too.

mod common;

use serde_json::Value;

#[test]
fn every_shared_vector_verifies_as_it_says() {
    let text = std::fs::read_to_string(common::repo_file("spec/bcrypt-vectors.json")).unwrap();
    let file: Value = serde_json::from_str(&text).unwrap();
    let vectors = file["vectors"].as_array().unwrap();
    assert!(vectors.len() >= 4, "too few vectors: {}", vectors.len());
    for prefix in ["$2a$", "$2b$"] {
        assert!(vectors.iter().any(|v| v["hash"].as_str().unwrap().starts_with(prefix)), "no {prefix} vector");
    }
    for v in vectors {
        let (password, hash) = (v["password"].as_str().unwrap(), v["hash"].as_str().unwrap());
        let matches = v["matches"].as_bool().unwrap();
        assert_eq!(bcrypt::verify(password, hash).unwrap(), matches, "{password:?} against {hash}");
    }
}

#[test]
fn a_new_hash_is_2b_and_verifies() {
    let hash = bcrypt::hash("correct horse battery staple", 4).unwrap();
    assert!(hash.starts_with("$2b$04$"), "{hash}");
    assert!(bcrypt::verify("correct horse battery staple", &hash).unwrap());
    assert!(!bcrypt::verify("correct horse battery stapler", &hash).unwrap());
}
