//! The shared vectors (spec/SPEC.md §7): hashes made by any runtime verify
//! here with the `bcrypt` crate, for both the `$2a$` and the `$2b$` prefix.

use serde_json::Value;

#[test]
fn every_shared_vector_verifies_with_the_bcrypt_crate() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../spec/bcrypt-vectors.json");
    let file: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let vectors = file["vectors"].as_array().expect("a vectors array");
    assert!(!vectors.is_empty(), "{path} has no vectors");
    let mut prefixes = std::collections::BTreeSet::new();
    for v in vectors {
        let (password, hash, matches) = (v["password"].as_str().unwrap(), v["hash"].as_str().unwrap(), v["matches"].as_bool().unwrap());
        prefixes.insert(&hash[..4]);
        let got = bcrypt::verify(password, hash).unwrap_or_else(|e| panic!("{hash}: {e}"));
        assert_eq!(got, matches, "password {password:?} against {hash}");
    }
    assert!(prefixes.contains("$2a$") && prefixes.contains("$2b$"), "prefixes checked: {prefixes:?}");
}

#[test]
fn a_hash_made_here_verifies_and_names_its_cost() {
    let hash = bcrypt::hash("pw", 4).unwrap();
    assert!(hash.starts_with("$2b$04$"), "{hash}");
    assert!(bcrypt::verify("pw", &hash).unwrap());
    assert!(!bcrypt::verify("pW", &hash).unwrap());
}
