//! The cargo-fuzz targets `fuzz/Cargo.toml` declares are the bodies `targets::TARGETS`
//! lists, in the same order, and each target's file calls its own body: a target added
//! in one place and not the other would not be replayed or would fuzz another body.

use std::fs;
use std::path::Path;

use toolfix_fuzzing::targets::TARGETS;

#[test]
fn every_declared_target_calls_its_body() {
    let fuzz = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz");
    let manifest: toml::Table = fs::read_to_string(fuzz.join("Cargo.toml"))
        .expect("fuzz/Cargo.toml")
        .parse()
        .expect("fuzz/Cargo.toml is TOML");
    let bins = manifest["bin"].as_array().expect("[[bin]] tables");
    let names: Vec<&str> = bins.iter().filter_map(|b| b["name"].as_str()).collect();
    assert_eq!(names, TARGETS, "fuzz/Cargo.toml's targets, in order");
    for bin in bins {
        let (name, path) = (bin["name"].as_str(), bin["path"].as_str());
        let body = fs::read_to_string(fuzz.join(path.expect("a path"))).expect("its file");
        let call = format!("toolfix_fuzzing::targets::{}(", name.expect("a name"));
        assert!(body.contains(&call), "{path:?} calls {call}");
    }
}
