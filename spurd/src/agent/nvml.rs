//! GPU discovery through NVML (gres.conf `AutoDetect=nvml`), the way
//! Slurm's gpu/nvml plugin does it. libnvidia-ml is opened with `dlopen`
//! when the agent starts, never linked, so spurd builds and runs on machines
//! without an NVIDIA driver; that is also why this needs no `nvml` Cargo
//! feature (STYLE 4). A failure is an [`NvmlError`] for the caller to log and
//! fall back from, never a crash. [`NvmlUsage`] keeps NVML open for the
//! agent's life to read what each process uses of the GPUs (Slurm 24.05's
//! gres/gpumem and gres/gpuutil).

use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_uint, c_void, CStr, CString, OsStr};
use std::os::unix::ffi::OsStrExt;
use std::ptr::{self, NonNull};

use tracing::warn;

use super::gpu::GpuDiscovery;

/// The library loaded when no path is given: the name the NVIDIA driver
/// installs, as Slurm's gpu/nvml plugin and the CUDA runtime open it.
pub const DEFAULT_LIBRARY: &str = "libnvidia-ml.so.1";

/// `NVML_DEVICE_NAME_V2_BUFFER_SIZE`: big enough for any device name.
const NAME_BUFFER_SIZE: usize = 96;

/// `NVML_SUCCESS`.
const NVML_SUCCESS: c_int = 0;

/// `nvmlDevice_t`: an opaque handle.
type NvmlDevice = *mut c_void;
type InitFn = unsafe extern "C" fn() -> c_int;
type GetCountFn = unsafe extern "C" fn(*mut c_uint) -> c_int;
type GetHandleByIndexFn = unsafe extern "C" fn(c_uint, *mut NvmlDevice) -> c_int;
type GetNameFn = unsafe extern "C" fn(NvmlDevice, *mut c_char, c_uint) -> c_int;
type GetMinorNumberFn = unsafe extern "C" fn(NvmlDevice, *mut c_uint) -> c_int;
type ShutdownFn = unsafe extern "C" fn() -> c_int;
type ErrorStringFn = unsafe extern "C" fn(c_int) -> *const c_char;
type RunningProcessesFn = unsafe extern "C" fn(NvmlDevice, *mut c_uint, *mut ProcessInfo) -> c_int;
type ProcessUtilizationFn =
    unsafe extern "C" fn(NvmlDevice, *mut UtilizationSample, *mut c_uint, u64) -> c_int;

/// `NVML_ERROR_NOT_FOUND`: no utilization samples yet.
const NVML_ERROR_NOT_FOUND: c_int = 6;
/// `NVML_ERROR_INSUFFICIENT_SIZE`: the array was too small; the count
/// says how big it must be.
const NVML_ERROR_INSUFFICIENT_SIZE: c_int = 7;
/// `NVML_VALUE_NOT_AVAILABLE` as a process's memory: unknown.
const NVML_VALUE_NOT_AVAILABLE: u64 = u64::MAX;

/// `nvmlProcessInfo_t` (its v2 layout, which the `_v3` function takes).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
struct ProcessInfo {
    pid: c_uint,
    used_gpu_memory: u64,
    gpu_instance_id: c_uint,
    compute_instance_id: c_uint,
}

/// `nvmlProcessUtilizationSample_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
struct UtilizationSample {
    pid: c_uint,
    time_stamp: u64,
    sm_util: c_uint,
    mem_util: c_uint,
    enc_util: c_uint,
    dec_util: c_uint,
}

/// Why NVML could not list the GPUs.
#[non_exhaustive]
#[derive(Debug, thiserror::Error)]
pub enum NvmlError {
    /// `dlopen` failed: no driver installed, or a bad path.
    #[error("cannot load the NVML library {library}: {reason}")]
    Load {
        /// The path or name given to `dlopen`.
        library: String,
        /// `dlerror`'s text.
        reason: String,
    },
    /// The library lacks a function spur calls.
    #[error("the NVML library {library} has no function {symbol}")]
    Symbol {
        /// The library.
        library: String,
        /// The missing function.
        symbol: &'static str,
    },
    /// An NVML call returned something other than `NVML_SUCCESS`.
    #[error("{function}{} failed: {}", on_gpu(*.gpu), describe(*.code, .message.as_deref()))]
    Call {
        /// The NVML function.
        function: &'static str,
        /// The GPU index the call was about, if any.
        gpu: Option<u32>,
        /// The `nvmlReturn_t`.
        code: i32,
        /// `nvmlErrorString(code)`, when the library has it.
        message: Option<String>,
    },
}

fn on_gpu(gpu: Option<u32>) -> String {
    gpu.map(|i| format!(" for GPU {i}")).unwrap_or_default()
}

fn describe(code: i32, message: Option<&str>) -> String {
    match message {
        Some(m) => format!("{m} (NVML error {code})"),
        None => format!("NVML error {code}"),
    }
}

/// One GPU as NVML reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NvmlGpu {
    /// NVML's index, which is also the CUDA_VISIBLE_DEVICES index.
    pub index: u32,
    /// The minor number of its device file, `/dev/nvidia<minor>`; it need
    /// not equal `index`.
    pub minor: u32,
    /// The device name, e.g. `NVIDIA H200`.
    pub name: String,
    /// The GRES type derived from the name by [`type_name`], e.g. `h200`.
    pub type_name: Option<String>,
}

impl NvmlGpu {
    /// The device file, `/dev/nvidia<minor>`.
    pub fn device_file(&self) -> String {
        format!("/dev/nvidia{}", self.minor)
    }
}

/// The GPUs NVML found, listed once when loaded (NVML takes seconds to
/// initialise, and registration asks on every reconnect).
#[derive(Debug, Clone)]
pub struct NvmlGpus {
    gpus: Vec<NvmlGpu>,
}

impl NvmlGpus {
    /// Lists the GPUs through [`DEFAULT_LIBRARY`].
    pub fn load() -> Result<NvmlGpus, NvmlError> {
        Self::load_from(OsStr::new(DEFAULT_LIBRARY))
    }

    /// Lists the GPUs through the NVML library at `library` (a path, or a
    /// name for the dynamic linker to find): init, count, each device's
    /// name and minor number in index order, shutdown, unload.
    pub fn load_from(library: &OsStr) -> Result<NvmlGpus, NvmlError> {
        let lib = Library::open(library)?;
        let api = Api::resolve(&lib)?;
        // SAFETY: a function of the NVML signature, taking no arguments.
        api.check("nvmlInit_v2", None, unsafe { (api.init)() })?;
        let listed = api.list();
        // SAFETY: NVML was initialised above; shut it down once.
        let shut = api.check("nvmlShutdown", None, unsafe { (api.shutdown)() });
        let gpus = listed?;
        if let Err(error) = shut {
            // The list is already complete; a failed shutdown costs nothing
            // more than the library staying initialised until it unloads.
            warn!(%error, library = %lib.name, "NVML did not shut down cleanly");
        }
        Ok(NvmlGpus { gpus })
    }

    /// The GPUs, in index order.
    pub fn gpus(&self) -> &[NvmlGpu] {
        &self.gpus
    }
}

impl GpuDiscovery for NvmlGpus {
    fn discover(&self) -> Vec<(u32, Option<String>)> {
        self.gpus
            .iter()
            .map(|g| (g.index, g.type_name.clone()))
            .collect()
    }
}

/// What the processes on a node's GPUs use, read through NVML.
pub trait GpuUsage: Send + Sync {
    /// Per process id: (GPU memory in bytes, SM utilisation in percent),
    /// each summed over the GPUs the process runs on.
    fn per_process(&self) -> HashMap<u32, (u64, u64)>;
}

/// NVML opened and initialised for the agent's life, to read what each
/// process uses of every GPU on the node: the memory NVML lists for it
/// among the compute and graphics processes, and its latest SM
/// utilisation sample, as Slurm's gpu/nvml plugin reads them.
pub struct NvmlUsage {
    /// The GPUs' handles (NVML's, valid until shutdown).
    devices: Vec<usize>,
    compute: RunningProcessesFn,
    graphics: Option<RunningProcessesFn>,
    utilization: Option<ProcessUtilizationFn>,
    shutdown: ShutdownFn,
    /// Dropped after `Drop::drop` has shut NVML down.
    _lib: Library,
}

// SAFETY: NVML is thread-safe (nvml.h: "NVML is thread-safe so it is
// safe to make simultaneous NVML calls from multiple threads"); the
// handles are opaque tokens NVML gave out.
unsafe impl Send for NvmlUsage {}
// SAFETY: as above; `&self` only makes NVML calls.
unsafe impl Sync for NvmlUsage {}

impl NvmlUsage {
    /// Opens [`DEFAULT_LIBRARY`].
    pub fn open() -> Result<NvmlUsage, NvmlError> {
        Self::open_from(OsStr::new(DEFAULT_LIBRARY))
    }

    /// Opens the NVML library at `library`, initialises it and takes every
    /// GPU's handle.
    pub fn open_from(library: &OsStr) -> Result<NvmlUsage, NvmlError> {
        let lib = Library::open(library)?;
        let api = Api::resolve(&lib)?;
        // SAFETY (each transmute): the symbol is the NVML function of that
        // name, whose C signature the target type spells out (nvml.h).
        let (compute, graphics, utilization) = unsafe {
            let compute = lib
                .find(c"nvmlDeviceGetComputeRunningProcesses_v3")
                .map_or_else(
                    || lib.require(c"nvmlDeviceGetComputeRunningProcesses_v2"),
                    Ok,
                )?;
            let graphics = lib
                .find(c"nvmlDeviceGetGraphicsRunningProcesses_v3")
                .or_else(|| lib.find(c"nvmlDeviceGetGraphicsRunningProcesses_v2"));
            (
                std::mem::transmute::<NonNull<c_void>, RunningProcessesFn>(compute),
                graphics.map(|f| std::mem::transmute::<NonNull<c_void>, RunningProcessesFn>(f)),
                lib.find(c"nvmlDeviceGetProcessUtilization")
                    .map(|f| std::mem::transmute::<NonNull<c_void>, ProcessUtilizationFn>(f)),
            )
        };
        // SAFETY: a function of the NVML signature, taking no arguments.
        api.check("nvmlInit_v2", None, unsafe { (api.init)() })?;
        let handles = (|| {
            let mut count: c_uint = 0;
            // SAFETY: `count` is a valid out-pointer.
            api.check("nvmlDeviceGetCount_v2", None, unsafe {
                (api.get_count)(&mut count)
            })?;
            (0..count)
                .map(|index| {
                    let mut device: NvmlDevice = ptr::null_mut();
                    // SAFETY: `device` is a valid out-pointer.
                    let rc = unsafe { (api.get_handle)(index, &mut device) };
                    api.check("nvmlDeviceGetHandleByIndex_v2", Some(index), rc)?;
                    Ok(device as usize)
                })
                .collect::<Result<Vec<_>, NvmlError>>()
        })();
        let shutdown = api.shutdown;
        match handles {
            Ok(devices) => Ok(NvmlUsage {
                devices,
                compute,
                graphics,
                utilization,
                shutdown,
                _lib: lib,
            }),
            Err(e) => {
                // SAFETY: initialised above; shut down once.
                unsafe { shutdown() };
                Err(e)
            }
        }
    }

    /// The processes `get` lists on `device`, asking again with a bigger
    /// array while processes come faster than the answers.
    fn processes(get: RunningProcessesFn, device: NvmlDevice) -> Vec<ProcessInfo> {
        let mut infos: Vec<ProcessInfo> = Vec::new();
        for _ in 0..4 {
            let mut count = infos.len() as c_uint;
            let out = if infos.is_empty() {
                ptr::null_mut()
            } else {
                infos.as_mut_ptr()
            };
            // SAFETY: `out` is null with a count of 0, or `count` writable
            // entries of the layout NVML fills.
            let rc = unsafe { get(device, &mut count, out) };
            match rc {
                NVML_SUCCESS => {
                    infos.truncate(count as usize);
                    return infos;
                }
                NVML_ERROR_INSUFFICIENT_SIZE => {
                    infos = vec![ProcessInfo::default(); count as usize + 8];
                }
                _ => return Vec::new(),
            }
        }
        Vec::new()
    }

    /// Each process's latest SM utilisation on `device`.
    fn utilization(get: ProcessUtilizationFn, device: NvmlDevice) -> HashMap<u32, u64> {
        let mut samples: Vec<UtilizationSample> = Vec::new();
        for _ in 0..4 {
            let mut count = samples.len() as c_uint;
            let out = if samples.is_empty() {
                ptr::null_mut()
            } else {
                samples.as_mut_ptr()
            };
            // SAFETY: as in `processes`; 0 asks for every sample NVML
            // still holds.
            let rc = unsafe { get(device, out, &mut count, 0) };
            match rc {
                NVML_SUCCESS => {
                    samples.truncate(count as usize);
                    let mut latest: HashMap<u32, (u64, u64)> = HashMap::new();
                    for s in &samples {
                        let seen = latest.entry(s.pid).or_default();
                        if s.time_stamp >= seen.0 {
                            *seen = (s.time_stamp, u64::from(s.sm_util));
                        }
                    }
                    return latest.into_iter().map(|(pid, (_, u))| (pid, u)).collect();
                }
                NVML_ERROR_INSUFFICIENT_SIZE if count > 0 => {
                    samples = vec![UtilizationSample::default(); count as usize + 8];
                }
                NVML_ERROR_NOT_FOUND => return HashMap::new(),
                // Not supported (a MIG device), or failing: none to give.
                _ => return HashMap::new(),
            }
        }
        HashMap::new()
    }
}

impl GpuUsage for NvmlUsage {
    fn per_process(&self) -> HashMap<u32, (u64, u64)> {
        let mut used: HashMap<u32, (u64, u64)> = HashMap::new();
        for &handle in &self.devices {
            let device = handle as NvmlDevice;
            for get in std::iter::once(self.compute).chain(self.graphics) {
                for p in Self::processes(get, device) {
                    if p.used_gpu_memory != NVML_VALUE_NOT_AVAILABLE {
                        let entry = used.entry(p.pid).or_default();
                        entry.0 = entry.0.saturating_add(p.used_gpu_memory);
                    }
                }
            }
            if let Some(get) = self.utilization {
                for (pid, util) in Self::utilization(get, device) {
                    used.entry(pid).or_default().1 += util;
                }
            }
        }
        used
    }
}

impl Drop for NvmlUsage {
    fn drop(&mut self) {
        // SAFETY: NVML was initialised in `open_from`; shut down once,
        // before the library unloads.
        unsafe { (self.shutdown)() };
    }
}

/// The GRES type of a GPU named `device_name`: lowercased, spaces turned
/// into underscores as Slurm's gpu/nvml plugin does
/// (`gpu_common_underscorify_tolower`), and a leading `nvidia ` dropped so
/// that `NVIDIA H200` gives `h200`, the type slurm.conf's `Gres=gpu:h200:4`
/// names. (Slurm keeps the vendor, `nvidia_h200`, and matches gres.conf's
/// `Type=` as a substring of it.) None for an empty name.
pub fn type_name(device_name: &str) -> Option<String> {
    let lower = device_name.trim().to_lowercase();
    let model = lower.strip_prefix("nvidia ").unwrap_or(&lower);
    (!model.is_empty()).then(|| model.replace(' ', "_"))
}

/// A `dlopen`ed library, closed on drop.
struct Library {
    handle: NonNull<c_void>,
    name: String,
}

impl Library {
    fn open(path: &OsStr) -> Result<Library, NvmlError> {
        let name = path.to_string_lossy().into_owned();
        let c_path = CString::new(path.as_bytes()).map_err(|_| NvmlError::Load {
            library: name.clone(),
            reason: "the path contains a NUL byte".into(),
        })?;
        // SAFETY: `c_path` is a NUL-terminated string that outlives the
        // call. Loading runs the library's initialisers, which is what
        // opening NVML means. RTLD_LOCAL keeps its symbols out of the
        // process's namespace.
        let handle = unsafe { libc::dlopen(c_path.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
        match NonNull::new(handle) {
            Some(handle) => Ok(Library { handle, name }),
            None => Err(NvmlError::Load {
                library: name,
                reason: dl_error().unwrap_or_else(|| "dlopen failed".into()),
            }),
        }
    }

    /// The address of `symbol`, or None when the library lacks it.
    fn find(&self, symbol: &CStr) -> Option<NonNull<c_void>> {
        // SAFETY: the handle is open until drop and `symbol` is
        // NUL-terminated.
        NonNull::new(unsafe { libc::dlsym(self.handle.as_ptr(), symbol.as_ptr()) })
    }

    fn require(&self, symbol: &'static CStr) -> Result<NonNull<c_void>, NvmlError> {
        self.find(symbol).ok_or_else(|| NvmlError::Symbol {
            library: self.name.clone(),
            symbol: symbol.to_str().unwrap_or("?"),
        })
    }
}

impl Drop for Library {
    fn drop(&mut self) {
        // SAFETY: the handle came from dlopen and is closed once; no
        // function pointer taken from it outlives `Api`, which borrows it.
        unsafe { libc::dlclose(self.handle.as_ptr()) };
    }
}

/// `dlerror`'s text, if there is one.
fn dl_error() -> Option<String> {
    // SAFETY: dlerror returns NULL or a NUL-terminated string that stays
    // valid until the next dl* call on this thread; it is copied at once.
    let text = unsafe { libc::dlerror() };
    (!text.is_null()).then(|| {
        unsafe { CStr::from_ptr(text) }
            .to_string_lossy()
            .into_owned()
    })
}

/// The NVML functions spur calls, resolved from a [`Library`] that
/// outlives them.
struct Api<'lib> {
    _lib: &'lib Library,
    init: InitFn,
    get_count: GetCountFn,
    get_handle: GetHandleByIndexFn,
    get_name: GetNameFn,
    get_minor: GetMinorNumberFn,
    shutdown: ShutdownFn,
    error_string: Option<ErrorStringFn>,
}

impl<'lib> Api<'lib> {
    fn resolve(lib: &'lib Library) -> Result<Api<'lib>, NvmlError> {
        // SAFETY (each transmute): the symbol is the NVML function of that
        // name, whose C signature the target type spells out (nvml.h);
        // function and data pointers have the same size on every target
        // that has dlopen.
        unsafe {
            Ok(Api {
                _lib: lib,
                init: std::mem::transmute::<NonNull<c_void>, InitFn>(lib.require(c"nvmlInit_v2")?),
                get_count: std::mem::transmute::<NonNull<c_void>, GetCountFn>(
                    lib.require(c"nvmlDeviceGetCount_v2")?,
                ),
                get_handle: std::mem::transmute::<NonNull<c_void>, GetHandleByIndexFn>(
                    lib.require(c"nvmlDeviceGetHandleByIndex_v2")?,
                ),
                get_name: std::mem::transmute::<NonNull<c_void>, GetNameFn>(
                    lib.require(c"nvmlDeviceGetName")?,
                ),
                get_minor: std::mem::transmute::<NonNull<c_void>, GetMinorNumberFn>(
                    lib.require(c"nvmlDeviceGetMinorNumber")?,
                ),
                shutdown: std::mem::transmute::<NonNull<c_void>, ShutdownFn>(
                    lib.require(c"nvmlShutdown")?,
                ),
                error_string: lib
                    .find(c"nvmlErrorString")
                    .map(|f| std::mem::transmute::<NonNull<c_void>, ErrorStringFn>(f)),
            })
        }
    }

    /// Ok on `NVML_SUCCESS`, else the error with `nvmlErrorString`'s text.
    fn check(
        &self,
        function: &'static str,
        gpu: Option<u32>,
        code: c_int,
    ) -> Result<(), NvmlError> {
        if code == NVML_SUCCESS {
            return Ok(());
        }
        let message = self.error_string.and_then(|error_string| {
            // SAFETY: nvmlErrorString takes any code and returns NULL or a
            // static NUL-terminated string.
            let text = unsafe { error_string(code) };
            (!text.is_null()).then(|| {
                unsafe { CStr::from_ptr(text) }
                    .to_string_lossy()
                    .into_owned()
            })
        });
        Err(NvmlError::Call {
            function,
            gpu,
            code,
            message,
        })
    }

    /// Every GPU, in index order; NVML must be initialised.
    fn list(&self) -> Result<Vec<NvmlGpu>, NvmlError> {
        let mut count: c_uint = 0;
        // SAFETY: `count` is a valid out-pointer.
        self.check("nvmlDeviceGetCount_v2", None, unsafe {
            (self.get_count)(&mut count)
        })?;
        (0..count).map(|index| self.gpu(index)).collect()
    }

    fn gpu(&self, index: u32) -> Result<NvmlGpu, NvmlError> {
        let at = Some(index);
        let mut device: NvmlDevice = ptr::null_mut();
        // SAFETY: `device` is a valid out-pointer.
        let rc = unsafe { (self.get_handle)(index, &mut device) };
        self.check("nvmlDeviceGetHandleByIndex_v2", at, rc)?;
        let mut name = [0u8; NAME_BUFFER_SIZE];
        // SAFETY: `device` came from NVML; the buffer holds NAME_BUFFER_SIZE
        // bytes, the length passed.
        let rc = unsafe {
            (self.get_name)(device, name.as_mut_ptr().cast(), NAME_BUFFER_SIZE as c_uint)
        };
        self.check("nvmlDeviceGetName", at, rc)?;
        let mut minor: c_uint = 0;
        // SAFETY: `device` came from NVML; `minor` is a valid out-pointer.
        let rc = unsafe { (self.get_minor)(device, &mut minor) };
        self.check("nvmlDeviceGetMinorNumber", at, rc)?;
        let len = name.iter().position(|&b| b == 0).unwrap_or(name.len());
        let name = String::from_utf8_lossy(&name[..len]).into_owned();
        Ok(NvmlGpu {
            index,
            minor,
            type_name: type_name(&name),
            name,
        })
    }
}

#[cfg(test)]
pub(super) mod tests {
    use std::path::{Path, PathBuf};
    use std::process::Command;

    use super::*;

    /// The fake libnvidia-ml's source: two `NVIDIA H200`s with minor
    /// numbers 3 and 1 unless FAKE_NVML_GPUS says otherwise, strict about
    /// init/shutdown order, reporting the processes FAKE_NVML_PROCS lists.
    /// `-D` switches make it fail.
    pub(crate) const FAKE_NVML: &str = include_str!("fake_nvml.c");

    /// Compiles the fake with `defines` into `dir` and returns its path.
    pub(in crate::agent) fn fake_nvml(dir: &Path, defines: &[&str]) -> PathBuf {
        let source = dir.join("fake_nvml.c");
        let variant: String = defines
            .concat()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        let library = dir.join(format!("libfake-nvml{variant}.so"));
        std::fs::write(&source, FAKE_NVML).expect("temp dir is writable");
        let status = Command::new("cc")
            .args(["-shared", "-fPIC", "-o"])
            .arg(&library)
            .args(defines.iter().map(|d| format!("-D{d}")))
            .arg(&source)
            .status()
            .expect("a C compiler `cc` is installed");
        assert!(status.success(), "cc failed to build the fake NVML");
        library
    }

    #[test]
    fn type_name_follows_slurms_gpu_nvml_without_the_vendor() {
        assert_eq!(type_name("NVIDIA H200").as_deref(), Some("h200"));
        assert_eq!(type_name("NVIDIA GB200").as_deref(), Some("gb200"));
        assert_eq!(
            type_name("NVIDIA H100 80GB HBM3").as_deref(),
            Some("h100_80gb_hbm3")
        );
        assert_eq!(
            type_name("Tesla V100-SXM2-16GB").as_deref(),
            Some("tesla_v100-sxm2-16gb")
        );
        assert_eq!(
            type_name("NVIDIA GeForce RTX 4090").as_deref(),
            Some("geforce_rtx_4090")
        );
        assert_eq!(type_name("NVIDIA").as_deref(), Some("nvidia"));
        assert_eq!(type_name(""), None);
    }

    #[test]
    fn fake_library_gives_its_gpus_in_index_order() {
        let dir = tempfile::tempdir().expect("temp dir");
        let nvml = NvmlGpus::load_from(fake_nvml(dir.path(), &[]).as_os_str()).expect("loads");
        let h200 = Some("h200".to_string());
        assert_eq!(nvml.discover(), vec![(0, h200.clone()), (1, h200)]);
        let gpus = nvml.gpus();
        assert_eq!(gpus[0].name, "NVIDIA H200");
        assert_eq!(
            gpus.iter().map(NvmlGpu::device_file).collect::<Vec<_>>(),
            ["/dev/nvidia3", "/dev/nvidia1"]
        );
        // Loading twice works: the first load shut NVML down and unloaded it.
        let again = NvmlGpus::load_from(fake_nvml(dir.path(), &[]).as_os_str()).expect("loads");
        assert_eq!(again.gpus(), gpus);
    }

    #[test]
    fn usage_is_read_per_process_and_summed_over_the_gpus() {
        let dir = tempfile::tempdir().expect("temp dir");
        let procs = dir.path().join("procs");
        std::fs::write(
            &procs,
            "0 4242 1073741824 80\n1 4242 536870912 70\n1 99 2048 0\n",
        )
        .expect("writes");
        let define = format!("FAKE_PROCS_FILE=\"{}\"", procs.display());
        let lib = fake_nvml(dir.path(), &[&define]);
        let usage = NvmlUsage::open_from(lib.as_os_str()).expect("opens");
        let used = usage.per_process();
        assert_eq!(used.get(&4242), Some(&(1_610_612_736, 150)));
        assert_eq!(used.get(&99), Some(&(2048, 0)));
        assert_eq!(used.len(), 2);
        // Read on every call: a process that went is gone.
        std::fs::write(&procs, "").expect("writes");
        assert!(usage.per_process().is_empty());
        drop(usage);
        // Shut down when dropped: discovery initialises it afresh.
        let gpus = NvmlGpus::load_from(lib.as_os_str()).expect("loads");
        assert_eq!(gpus.gpus().len(), 2);
    }

    #[test]
    fn failing_init_carries_nvml_error_string() {
        let dir = tempfile::tempdir().expect("temp dir");
        let lib = fake_nvml(dir.path(), &["FAKE_INIT_FAILS"]);
        let err = NvmlGpus::load_from(lib.as_os_str()).expect_err("init fails");
        let NvmlError::Call {
            function,
            gpu,
            code,
            message,
        } = &err
        else {
            panic!("not a call error: {err:?}");
        };
        assert_eq!((*function, *gpu, *code), ("nvmlInit_v2", None, 9));
        assert_eq!(message.as_deref(), Some("Driver Not Loaded"));
        assert_eq!(
            err.to_string(),
            "nvmlInit_v2 failed: Driver Not Loaded (NVML error 9)"
        );
    }

    #[test]
    fn failing_init_without_error_string_gives_the_code() {
        let dir = tempfile::tempdir().expect("temp dir");
        let lib = fake_nvml(dir.path(), &["FAKE_INIT_FAILS", "FAKE_NO_ERROR_STRING"]);
        let err = NvmlGpus::load_from(lib.as_os_str()).expect_err("init fails");
        assert_eq!(err.to_string(), "nvmlInit_v2 failed: NVML error 9");
    }

    #[test]
    fn missing_function_is_named() {
        let dir = tempfile::tempdir().expect("temp dir");
        let lib = fake_nvml(dir.path(), &["FAKE_NO_MINOR"]);
        let err = NvmlGpus::load_from(lib.as_os_str()).expect_err("no minor numbers");
        assert!(
            matches!(
                err,
                NvmlError::Symbol {
                    symbol: "nvmlDeviceGetMinorNumber",
                    ..
                }
            ),
            "{err:?}"
        );
        assert!(err
            .to_string()
            .ends_with("has no function nvmlDeviceGetMinorNumber"));
    }

    #[test]
    fn missing_library_is_a_clear_error() {
        let dir = tempfile::tempdir().expect("temp dir");
        let missing = dir.path().join("libnvidia-ml.so.1");
        let err = NvmlGpus::load_from(missing.as_os_str()).expect_err("no such file");
        assert!(matches!(err, NvmlError::Load { .. }), "{err:?}");
        let text = err.to_string();
        let expected = format!("cannot load the NVML library {}: ", missing.display());
        assert!(text.starts_with(&expected), "{text}");
        assert!(text.contains("No such file or directory"), "{text}");
    }

    /// Run by bench/nvml-check on a machine with an NVIDIA driver. With
    /// SPUR_NVML_CHECK_CONF (a slurm.conf whose gres.conf says
    /// AutoDetect=nvml) and SPUR_NVML_CHECK_NODE, it also checks that the
    /// agent's settings for that node choose NVML.
    #[test]
    #[ignore = "needs an NVIDIA driver; run by bench/nvml-check"]
    fn discovers_the_real_gpus() {
        let nvml = NvmlGpus::load().unwrap_or_else(|e| panic!("{e}"));
        for g in nvml.gpus() {
            println!(
                "gpu {} {} type={} {}",
                g.index,
                g.device_file(),
                g.type_name.as_deref().unwrap_or("-"),
                g.name
            );
        }
        assert!(!nvml.gpus().is_empty(), "NVML found no GPUs");
        if let Some(conf) = std::env::var_os("SPUR_NVML_CHECK_CONF") {
            let conf = PathBuf::from(conf);
            let node = std::env::var("SPUR_NVML_CHECK_NODE").expect("SPUR_NVML_CHECK_NODE is set");
            let settings =
                crate::agent::Settings::load(&conf, &conf.with_file_name("spur.key"), Some(node))
                    .expect("settings load");
            let found = settings.gpus.discover();
            println!("agent settings discover {found:?}");
            assert_eq!(found, nvml.discover());
        }
    }
}
