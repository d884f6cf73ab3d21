//! `Context`: one `sy_context_t` — its plugins, load report, devices and ops.
//!
//! Ownership: a `Context` owns its handle and destroys it on `Drop`. Every
//! device, op and tensor borrows the context (`Device<'c>`, `Op<'c>`,
//! `Tensor<'c>`), so the compiler ends their lives before the context's:
//! the stale handles the C API reports after `sy_context_destroy` cannot
//! be reached from safe code. docs/rust.md says why a lifetime, not an
//! `Rc`/`Arc`.

use std::ffi::CString;
use std::os::raw::c_char;
use std::path::{Path, PathBuf};
use std::ptr;

use crate::device::Device;
use crate::dtype::{DType, Element};
use crate::error::{check, Error, Result};
use crate::ffi;
use crate::op::{Attr, Op};
use crate::tensor::Tensor;
use crate::util;

/// How a context finds its plugins: `sy_context_options_t`, with the same
/// defaults (`ContextOptions::default()`).
#[derive(Clone, Debug)]
pub struct ContextOptions {
    /// Folders or manifests searched first ("discovered": a failure is recorded).
    pub plugin_paths: Vec<PathBuf>,
    /// Manifests loaded after discovery ("requested": a failure is an error).
    pub plugin_manifests: Vec<PathBuf>,
    /// With a non-empty allow list only those plugins load (and each must).
    pub allow: Vec<String>,
    /// Plugins that never load.
    pub deny: Vec<String>,
    /// Read SWITCHYARD_PLUGIN_PATH and SWITCHYARD_PLUGINS (default true).
    pub use_environment: bool,
    /// Search lib/switchyard/plugins next to libswitchyard.so (default true).
    pub use_default_path: bool,
    /// Run ops without a kernel on the inputs' device on cpu, with copies:
    /// `Some(true)`/`Some(false)`; `None` lets SWITCHYARD_CPU_FALLBACK=1 decide.
    pub cpu_fallback: Option<bool>,
}

impl Default for ContextOptions {
    fn default() -> Self {
        ContextOptions {
            plugin_paths: Vec::new(),
            plugin_manifests: Vec::new(),
            allow: Vec::new(),
            deny: Vec::new(),
            use_environment: true,
            use_default_path: true,
            cpu_fallback: None,
        }
    }
}

/// The outcome of one plugin load attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoadOutcome {
    Loaded,
    Failed,
    Skipped,
}

/// One entry of the load report (`sy_plugin_record_t`), copied out.
#[derive(Clone, Debug)]
pub struct PluginRecord {
    pub name: String,
    pub manifest_path: String,
    pub library_path: String,
    pub outcome: LoadOutcome,
    /// Named by the user, so a failure was an error.
    pub requested: bool,
    pub stage: String,
    pub reason: String,
    pub description: String,
    pub plugin_version: String,
    pub host_abi: (u32, u32),
    pub plugin_abi: (u32, u32),
    pub num_devices: i32,
    pub num_schemas: i32,
    pub num_kernels: i32,
    pub load_ms: f64,
}

/// A Switchyard context. Thread-safe (`Send + Sync`): the C API allows any
/// call from any thread, concurrently, on the same handles.
pub struct Context {
    handle: ffi::sy_context_t,
}

// SAFETY: switchyard.h, "Threads": every function is thread-safe and may be
// called from any thread, concurrently, including on the same handles; the
// handle is a token, not an address.
unsafe impl Send for Context {}
unsafe impl Sync for Context {}

/// The API version of the loaded library (major, minor).
pub fn api_version() -> (u32, u32) {
    let (mut major, mut minor) = (0u32, 0u32);
    // SAFETY: both out-pointers are valid; the function cannot fail.
    unsafe { ffi::sy_api_version(&mut major, &mut minor) };
    (major, minor)
}

/// The library's release version, e.g. "0.1.0".
pub fn library_version() -> String {
    // SAFETY: a static string.
    unsafe { util::string(ffi::sy_library_version()) }
}

/// The loaded library must speak the API these declarations transcribe:
/// the same major, and at least the minor (switchyard.h, "Versioning").
/// Checked before the first context, so a mismatch is a clear error rather
/// than a misread struct.
fn check_library_version() -> Result<()> {
    let (major, minor) = api_version();
    if major != ffi::SY_API_VERSION_MAJOR || minor < ffi::SY_API_VERSION_MINOR {
        return Err(Error::new(
            crate::Code::FailedPrecondition,
            format!(
                "the loaded libswitchyard speaks C API {major}.{minor}, but this crate needs {}.{} or a \
                 later minor of the same major; rebuild against a matching library (SWITCHYARD_LIB_DIR)",
                ffi::SY_API_VERSION_MAJOR,
                ffi::SY_API_VERSION_MINOR
            ),
        ));
    }
    Ok(())
}

fn c_strings(what: &str, values: impl Iterator<Item = Result<CString>>) -> Result<Vec<CString>> {
    values.collect::<Result<Vec<_>>>().map_err(|e| Error::new(e.code, format!("{what}: {}", e.message)))
}

fn pointers(strings: &[CString]) -> Vec<*const c_char> {
    strings.iter().map(|s| s.as_ptr()).collect()
}

impl Context {
    /// A context with the default options: plugins from
    /// SWITCHYARD_PLUGIN_PATH and the folder next to libswitchyard.so.
    pub fn new() -> Result<Context> {
        Context::with_options(&ContextOptions::default())
    }

    /// A context with explicit plugin choices.
    pub fn with_options(options: &ContextOptions) -> Result<Context> {
        check_library_version()?;
        let paths =
            c_strings("plugin_paths", options.plugin_paths.iter().map(|p| util::cpath("plugin path", p)))?;
        let manifests = c_strings(
            "plugin_manifests",
            options.plugin_manifests.iter().map(|p| util::cpath("plugin manifest", p)),
        )?;
        let allow = c_strings("allow", options.allow.iter().map(|s| util::cstring("plugin name", s)))?;
        let deny = c_strings("deny", options.deny.iter().map(|s| util::cstring("plugin name", s)))?;
        let (paths_p, manifests_p) = (pointers(&paths), pointers(&manifests));
        let (allow_p, deny_p) = (pointers(&allow), pointers(&deny));

        let mut raw = ffi::sy_context_options_t::init();
        raw.plugin_paths = paths_p.as_ptr();
        raw.num_plugin_paths = util::count("plugin_paths", paths_p.len())?;
        raw.plugin_manifests = manifests_p.as_ptr();
        raw.num_plugin_manifests = util::count("plugin_manifests", manifests_p.len())?;
        raw.allow = allow_p.as_ptr();
        raw.num_allow = util::count("allow", allow_p.len())?;
        raw.deny = deny_p.as_ptr();
        raw.num_deny = util::count("deny", deny_p.len())?;
        raw.use_environment = options.use_environment as i32;
        raw.use_default_path = options.use_default_path as i32;
        raw.cpu_fallback = match options.cpu_fallback {
            None => -1,
            Some(on) => on as i32,
        };
        let mut handle: ffi::sy_context_t = ptr::null_mut();
        // SAFETY: the options and every string they point at outlive the call.
        check(unsafe { ffi::sy_context_create(&raw, &mut handle) })?;
        Ok(Context { handle })
    }

    pub(crate) fn raw(&self) -> ffi::sy_context_t {
        self.handle
    }

    /// Loads one more plugin from its manifest; a failure is an error
    /// (FAILED_PRECONDITION with the load record in plain words).
    pub fn load_plugin(&self, manifest: impl AsRef<Path>) -> Result<()> {
        let path = util::cpath("load_plugin", manifest.as_ref())?;
        // SAFETY: valid handle and string for the call.
        check(unsafe { ffi::sy_context_load_plugin(self.handle, path.as_ptr()) })
    }

    /// Unloads a plugin by name (FAILED_PRECONDITION while tensors on its
    /// devices are alive; NOT_FOUND for an unknown name). Devices and ops it
    /// provided then fail cleanly when used.
    pub fn unload_plugin(&self, name: &str) -> Result<()> {
        let name = util::cstring("unload_plugin", name)?;
        // SAFETY: valid handle and string for the call.
        check(unsafe { ffi::sy_context_unload_plugin(self.handle, name.as_ptr()) })
    }

    /// Every plugin load attempt so far, in order.
    pub fn load_report(&self) -> Result<Vec<PluginRecord>> {
        let mut count = 0i32;
        // SAFETY: valid handle and out-pointer.
        check(unsafe { ffi::sy_context_plugin_record_count(self.handle, &mut count) })?;
        (0..count).map(|i| self.plugin_record(i)).collect()
    }

    fn plugin_record(&self, index: i32) -> Result<PluginRecord> {
        let mut r: ffi::sy_plugin_record_t = ffi::out_struct();
        // SAFETY: valid handle; the out-struct has struct_size set.
        check(unsafe { ffi::sy_context_plugin_record(self.handle, index, &mut r) })?;
        let outcome = match r.outcome {
            ffi::SY_LOAD_LOADED => LoadOutcome::Loaded,
            ffi::SY_LOAD_SKIPPED => LoadOutcome::Skipped,
            _ => LoadOutcome::Failed,
        };
        // SAFETY: the strings live as long as the context; copied here.
        unsafe {
            Ok(PluginRecord {
                name: util::string(r.name),
                manifest_path: util::string(r.manifest_path),
                library_path: util::string(r.library_path),
                outcome,
                requested: r.requested != 0,
                stage: util::string(r.stage),
                reason: util::string(r.reason),
                description: util::string(r.description),
                plugin_version: util::string(r.plugin_version),
                host_abi: (r.host_abi_major, r.host_abi_minor),
                plugin_abi: (r.plugin_abi_major, r.plugin_abi_minor),
                num_devices: r.num_devices,
                num_schemas: r.num_schemas,
                num_kernels: r.num_kernels,
                load_ms: r.load_ms,
            })
        }
    }

    /// What `switchyard info --json` shows, as one JSON document.
    pub fn info_json(&self) -> Result<String> {
        let mut text: *const c_char = ptr::null();
        // SAFETY: valid handle; the text is copied before the next call.
        check(unsafe { ffi::sy_context_info_json(self.handle, &mut text) })?;
        Ok(unsafe { util::string(text) })
    }

    /// Waits for the queued work of every device.
    pub fn synchronize(&self) -> Result<()> {
        // SAFETY: valid handle.
        check(unsafe { ffi::sy_context_synchronize(self.handle) })
    }

    /// Every device, in plugin load order.
    pub fn devices(&self) -> Result<Vec<Device<'_>>> {
        let mut count = 0i32;
        // SAFETY: valid handle and out-pointer.
        check(unsafe { ffi::sy_device_count(self.handle, &mut count) })?;
        (0..count)
            .map(|i| {
                let mut handle: ffi::sy_device_handle_t = ptr::null_mut();
                // SAFETY: valid handle and out-pointer.
                check(unsafe { ffi::sy_device_get(self.handle, i, &mut handle) })?;
                Ok(Device::from_raw(self, handle))
            })
            .collect()
    }

    /// The device for a spec: "cpu", "cpu:0", "cuda:1" (NOT_FOUND lists
    /// the devices there are).
    pub fn device(&self, spec: &str) -> Result<Device<'_>> {
        let c_spec = util::cstring("device", spec)?;
        let mut handle: ffi::sy_device_handle_t = ptr::null_mut();
        // SAFETY: valid handle, string and out-pointer.
        check(unsafe { ffi::sy_device_find(self.handle, c_spec.as_ptr(), &mut handle) })?;
        Ok(Device::from_raw(self, handle))
    }

    /// An op by full name ("add.Scalar") or base name ("add": its first
    /// overload). Look it up once and call it many times.
    pub fn op(&self, name: &str) -> Result<Op<'_>> {
        Op::find(self, name)
    }

    /// Every op the context knows, in registration order.
    pub fn ops(&self) -> Result<Vec<Op<'_>>> {
        Op::all(self)
    }

    /// Finds `name` and calls it: see `Op::call`.
    pub fn call<'c>(
        &'c self,
        name: &str,
        inputs: &[&Tensor<'c>],
        attrs: &[(&str, Attr)],
    ) -> Result<Tensor<'c>> {
        self.op(name)?.call(inputs, attrs)
    }

    /// A tensor on "cpu" holding a copy of `data` (row-major, `shape`).
    pub fn tensor<T: Element>(&self, data: &[T], shape: &[i64]) -> Result<Tensor<'_>> {
        self.device("cpu")?.tensor(data, shape)
    }

    /// A tensor on "cpu" of raw little-endian bytes of `dtype` (for f16 and
    /// bf16, which have no Rust element type).
    pub fn tensor_from_bytes(&self, dtype: DType, shape: &[i64], bytes: &[u8]) -> Result<Tensor<'_>> {
        self.device("cpu")?.tensor_from_bytes(dtype, shape, bytes)
    }

    /// An uninitialized tensor on "cpu".
    pub fn empty(&self, dtype: DType, shape: &[i64]) -> Result<Tensor<'_>> {
        self.device("cpu")?.empty(dtype, shape)
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        // Every Tensor, Device and Op borrowed the context, so none is left
        // to go stale. Destroy cannot fail on a handle we created once.
        // SAFETY: the handle is ours and destroyed exactly once.
        unsafe { ffi::sy_context_destroy(self.handle) };
    }
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Context({:p})", self.handle)
    }
}
