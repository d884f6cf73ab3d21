//! Links libswitchyard.so from $SWITCHYARD_LIB_DIR (the CMake build passes
//! the folder of its `switchyard` target), with an rpath to that folder so
//! tests and examples run without LD_LIBRARY_PATH.
//!
//! Without the variable it falls back to the source tree's build/release/lib
//! when that exists, and otherwise to the linker's default search path (an
//! installed libswitchyard.so).

use std::env;
use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-env-changed=SWITCHYARD_LIB_DIR");
    println!("cargo:rerun-if-changed=build.rs");
    let manifest_dir =
        PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let dir = match env::var_os("SWITCHYARD_LIB_DIR") {
        Some(dir) if !dir.is_empty() => Some(PathBuf::from(dir)),
        _ => {
            let fallback = manifest_dir.join("../../build/release/lib");
            if fallback.join("libswitchyard.so").exists() {
                Some(fallback)
            } else {
                println!(
                    "cargo:warning=SWITCHYARD_LIB_DIR is not set and build/release/lib has no \
                     libswitchyard.so; linking whatever the linker finds"
                );
                None
            }
        }
    };
    if let Some(dir) = dir {
        let dir = dir.canonicalize().unwrap_or(dir);
        if !dir.join("libswitchyard.so").exists() {
            panic!(
                "SWITCHYARD_LIB_DIR={} holds no libswitchyard.so; build it first \
                 (ninja -C build/release switchyard) or point the variable at its folder",
                dir.display()
            );
        }
        println!("cargo:rustc-link-search=native={}", dir.display());
        // Applies to tests, examples and binaries (not to the rlib itself).
        println!("cargo:rustc-link-arg=-Wl,-rpath,{}", dir.display());
        println!("cargo:lib_dir={}", dir.display());
        // Lets the tests find the plugins built next to the library.
        println!("cargo:rustc-env=SWITCHYARD_BUILT_LIB_DIR={}", dir.display());
    }
}
