//! The system's GSS-API library (MIT Kerberos's libgssapi_krb5.so.2), loaded at run time
//! with dlopen: the binary links no Kerberos library, so it starts, and speaks PLAIN and
//! SCRAM, where none is installed. Only the few gss_* calls the SASL GSSAPI exchange needs
//! are declared, each wrapped in an owning type that releases what the library allocated.

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::fmt;
use std::ptr;
use std::sync::OnceLock;

/// The library's soname: MIT Kerberos, Debian's package libgssapi-krb5-2.
pub const LIBRARY: &str = "libgssapi_krb5.so.2";

type Status = u32;
type NameT = *mut c_void;
type CredT = *mut c_void;
type CtxT = *mut c_void;

#[repr(C)]
struct BufferDesc {
    length: usize,
    value: *mut c_void,
}

#[repr(C)]
struct OidDesc {
    length: u32,
    elements: *const c_void,
}

#[repr(C)]
struct OidSetDesc {
    count: usize,
    elements: *const OidDesc,
}

#[repr(C)]
struct KeyValueElement {
    key: *const c_char,
    value: *const c_char,
}

#[repr(C)]
struct KeyValueSet {
    count: u32,
    elements: *const KeyValueElement,
}

// The OIDs we pass: the library only reads them (RFC 2744, RFC 1964).
const KRB5_MECH: &[u8] = b"\x2a\x86\x48\x86\xf7\x12\x01\x02\x02";
const NT_HOSTBASED_SERVICE: &[u8] = b"\x2a\x86\x48\x86\xf7\x12\x01\x02\x01\x04";
const NT_KRB5_PRINCIPAL: &[u8] = b"\x2a\x86\x48\x86\xf7\x12\x01\x02\x02\x01";

fn oid(bytes: &'static [u8]) -> OidDesc {
    OidDesc {
        length: bytes.len() as u32,
        elements: bytes.as_ptr().cast(),
    }
}

const S_COMPLETE: Status = 0;
const S_CONTINUE_NEEDED: Status = 1;
const C_GSS_CODE: c_int = 1;
const C_MECH_CODE: c_int = 2;
const C_INITIATE: c_int = 1;
const C_INDEFINITE: u32 = 0xffff_ffff;
pub const C_MUTUAL_FLAG: u32 = 2;
pub const C_INTEG_FLAG: u32 = 32;
/// The routine error field of a major status (RFC 2744 3.9.1).
pub const S_NO_CRED: Status = 7 << 16;
pub const S_CREDENTIALS_EXPIRED: Status = 11 << 16;

fn is_error(major: Status) -> bool {
    major & 0xffff_0000 != 0
}

macro_rules! functions {
    ($($field:ident = $symbol:literal: fn($($arg:ty),*);)*) => {
        struct Functions {
            $($field: unsafe extern "C" fn(*mut u32 $(, $arg)*) -> Status,)*
        }

        impl Functions {
            /// Every symbol, or the first that is missing.
            unsafe fn resolve(handle: *mut c_void) -> Result<Functions, String> {
                Ok(Functions {
                    $($field: {
                        let symbol = libc::dlsym(handle, concat!($symbol, "\0").as_ptr().cast());
                        if symbol.is_null() {
                            return Err(format!("it has no {}", $symbol));
                        }
                        // SAFETY: the symbol is MIT's function of that name, whose C
                        // signature (gssapi.h, gssapi_ext.h) the declaration repeats.
                        std::mem::transmute::<*mut c_void, unsafe extern "C" fn(*mut u32 $(, $arg)*) -> Status>(symbol)
                    },)*
                })
            }
        }
    };
}

functions! {
    import_name = "gss_import_name": fn(*const BufferDesc, *const OidDesc, *mut NameT);
    release_name = "gss_release_name": fn(*mut NameT);
    acquire_cred_from = "gss_acquire_cred_from":
        fn(NameT, u32, *const OidSetDesc, c_int, *const KeyValueSet, *mut CredT, *mut *mut c_void, *mut u32);
    release_cred = "gss_release_cred": fn(*mut CredT);
    init_sec_context = "gss_init_sec_context":
        fn(CredT, *mut CtxT, NameT, *const OidDesc, u32, u32, *const c_void, *const BufferDesc,
           *mut *mut c_void, *mut BufferDesc, *mut u32, *mut u32);
    delete_sec_context = "gss_delete_sec_context": fn(*mut CtxT, *mut BufferDesc);
    wrap = "gss_wrap": fn(CtxT, c_int, u32, *const BufferDesc, *mut c_int, *mut BufferDesc);
    unwrap = "gss_unwrap": fn(CtxT, *const BufferDesc, *mut BufferDesc, *mut c_int, *mut u32);
    release_buffer = "gss_release_buffer": fn(*mut BufferDesc);
    display_status = "gss_display_status": fn(u32, c_int, *const OidDesc, *mut u32, *mut BufferDesc);
}

/// The loaded library; it stays loaded for the life of the process.
pub struct Library {
    f: Functions,
}

// SAFETY: the handles the library hands out are used by one thread at a time (each owned
// by one value), which MIT's GSS-API permits; the function table itself is immutable.
unsafe impl Send for Library {}
unsafe impl Sync for Library {}

/// Why the library could not be used: not installed, or not the expected one.
#[derive(Debug, Clone)]
pub struct Missing {
    pub reason: String,
}

impl fmt::Display for Missing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "SASL GSSAPI needs the system's GSS-API library {LIBRARY} (MIT Kerberos), which could not be loaded: {}",
            self.reason
        )
    }
}

impl std::error::Error for Missing {}

/// The library, loaded on first use.
pub fn library() -> Result<&'static Library, Missing> {
    static LOADED: OnceLock<Result<Library, Missing>> = OnceLock::new();
    LOADED
        .get_or_init(|| {
            let name = CString::new(LIBRARY).map_err(|e| Missing {
                reason: e.to_string(),
            })?;
            // SAFETY: dlopen with a valid C string; RTLD_LOCAL keeps its symbols to us.
            let handle = unsafe { libc::dlopen(name.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
            if handle.is_null() {
                return Err(Missing { reason: dl_error() });
            }
            // SAFETY: the handle is a loaded library; resolve checks every symbol.
            let f = unsafe { Functions::resolve(handle) }.map_err(|reason| Missing { reason })?;
            Ok(Library { f })
        })
        .as_ref()
        .map_err(Clone::clone)
}

fn dl_error() -> String {
    // SAFETY: dlerror returns null or a C string valid until the next dl* call here.
    let message = unsafe { libc::dlerror() };
    if message.is_null() {
        "dlopen failed".to_string()
    } else {
        unsafe { CStr::from_ptr(message) }
            .to_string_lossy()
            .into_owned()
    }
}

/// A failed GSS-API call: its major and minor status and the library's text for both.
#[derive(Debug, Clone)]
pub struct Failure {
    pub call: &'static str,
    pub major: u32,
    pub minor: u32,
    pub text: String,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.call, self.text)
    }
}

impl std::error::Error for Failure {}

/// A buffer the library allocated, released on drop.
struct Owned<'a> {
    lib: &'a Library,
    buffer: BufferDesc,
}

impl<'a> Owned<'a> {
    fn new(lib: &'a Library) -> Self {
        Owned {
            lib,
            buffer: BufferDesc {
                length: 0,
                value: ptr::null_mut(),
            },
        }
    }

    fn bytes(&self) -> &[u8] {
        if self.buffer.value.is_null() || self.buffer.length == 0 {
            return &[];
        }
        // SAFETY: the library filled value/length with a buffer it owns until released.
        unsafe { std::slice::from_raw_parts(self.buffer.value.cast(), self.buffer.length) }
    }
}

impl Drop for Owned<'_> {
    fn drop(&mut self) {
        if !self.buffer.value.is_null() {
            let mut minor = 0;
            // SAFETY: a buffer the library allocated, released once.
            unsafe { (self.lib.f.release_buffer)(&mut minor, &mut self.buffer) };
        }
    }
}

fn borrowed(bytes: &[u8]) -> BufferDesc {
    BufferDesc {
        length: bytes.len(),
        value: bytes.as_ptr() as *mut c_void,
    }
}

impl Library {
    /// The library's text for a status: the major's routine and supplementary messages,
    /// then the mechanism's (Kerberos's) message for the minor status.
    pub fn describe(&self, major: u32, minor: u32) -> String {
        let mut parts = self.messages(major, C_GSS_CODE);
        if minor != 0 {
            parts.extend(self.messages(minor, C_MECH_CODE));
        }
        parts.join(": ")
    }

    fn messages(&self, status: u32, kind: c_int) -> Vec<String> {
        let mech = oid(KRB5_MECH);
        let mut context = 0u32;
        let mut out = Vec::new();
        // Bounded: a misbehaving library cannot loop us.
        for _ in 0..8 {
            let mut minor = 0;
            let mut text = Owned::new(self);
            // SAFETY: valid out-pointers; the text buffer is released by Owned.
            let major = unsafe {
                (self.f.display_status)(
                    &mut minor,
                    status,
                    kind,
                    &mech,
                    &mut context,
                    &mut text.buffer,
                )
            };
            if is_error(major) {
                break;
            }
            let message = String::from_utf8_lossy(text.bytes()).trim().to_string();
            if !message.is_empty() {
                out.push(message);
            }
            if context == 0 {
                break;
            }
        }
        if out.is_empty() {
            out.push(format!("status {status:#x}"));
        }
        out
    }

    fn check(&self, call: &'static str, major: u32, minor: u32) -> Result<u32, Failure> {
        if is_error(major) {
            return Err(Failure {
                call,
                major,
                minor,
                text: self.describe(major, minor),
            });
        }
        Ok(major)
    }

    /// A host-based service name (`service@host`), as RFC 4752 names the server.
    pub fn service_name(&'static self, service: &str, host: &str) -> Result<Name, Failure> {
        self.import(&format!("{service}@{host}"), NT_HOSTBASED_SERVICE)
    }

    /// A Kerberos principal name (`primary/instance@REALM`).
    pub fn principal_name(&'static self, principal: &str) -> Result<Name, Failure> {
        self.import(principal, NT_KRB5_PRINCIPAL)
    }

    fn import(&'static self, text: &str, kind: &'static [u8]) -> Result<Name, Failure> {
        let mut minor = 0;
        let mut name: NameT = ptr::null_mut();
        let buffer = borrowed(text.as_bytes());
        let kind = oid(kind);
        // SAFETY: the input buffer and OID outlive the call; name is an out-pointer.
        let major = unsafe { (self.f.import_name)(&mut minor, &buffer, &kind, &mut name) };
        self.check("gss_import_name", major, minor)?;
        Ok(Name { lib: self, name })
    }

    /// Initiator credentials for the Kerberos mechanism: of `name` (None: the cache's
    /// default principal), from the given credential store entries (MIT's
    /// gss_acquire_cred_from: `client_keytab`, `ccache`); with none, the default cache.
    pub fn acquire(
        &'static self,
        name: Option<&Name>,
        store: &[(&str, &str)],
    ) -> Result<Credential, Failure> {
        let strings: Vec<(CString, CString)> = store
            .iter()
            .map(|(k, v)| Ok((CString::new(*k)?, CString::new(*v)?)))
            .collect::<Result<_, std::ffi::NulError>>()
            .map_err(|e| Failure {
                call: "gss_acquire_cred_from",
                major: 0,
                minor: 0,
                text: format!("a credential store value holds a NUL byte: {e}"),
            })?;
        let elements: Vec<KeyValueElement> = strings
            .iter()
            .map(|(k, v)| KeyValueElement {
                key: k.as_ptr(),
                value: v.as_ptr(),
            })
            .collect();
        let set = KeyValueSet {
            count: elements.len() as u32,
            elements: elements.as_ptr(),
        };
        let mech = oid(KRB5_MECH);
        let mechs = OidSetDesc {
            count: 1,
            elements: &mech,
        };
        let mut minor = 0;
        let mut cred: CredT = ptr::null_mut();
        // SAFETY: every input outlives the call; cred is an out-pointer, the optional
        // outputs are null (not wanted).
        let major = unsafe {
            (self.f.acquire_cred_from)(
                &mut minor,
                name.map_or(ptr::null_mut(), |n| n.name),
                C_INDEFINITE,
                &mechs,
                C_INITIATE,
                if elements.is_empty() {
                    ptr::null()
                } else {
                    &set
                },
                &mut cred,
                ptr::null_mut(),
                ptr::null_mut(),
            )
        };
        self.check("gss_acquire_cred_from", major, minor)?;
        Ok(Credential { lib: self, cred })
    }
}

/// An imported name, released on drop.
pub struct Name {
    lib: &'static Library,
    name: NameT,
}

impl Drop for Name {
    fn drop(&mut self) {
        let mut minor = 0;
        // SAFETY: a name the library made, released once.
        unsafe { (self.lib.f.release_name)(&mut minor, &mut self.name) };
    }
}

/// Initiator credentials, released on drop.
pub struct Credential {
    lib: &'static Library,
    cred: CredT,
}

impl Drop for Credential {
    fn drop(&mut self) {
        let mut minor = 0;
        // SAFETY: credentials the library made, released once.
        unsafe { (self.lib.f.release_cred)(&mut minor, &mut self.cred) };
    }
}

/// A security context being (or once) established with one server, deleted on drop.
pub struct Context {
    lib: &'static Library,
    ctx: CtxT,
    cred: Credential,
    target: Name,
    flags: u32,
}

// SAFETY: a context, its credential and name are used by one thread at a time (the
// exchange moves them into a blocking task and back), which MIT's library permits.
unsafe impl Send for Context {}

/// What one gss_init_sec_context step gave.
pub struct Step {
    /// The token to send to the server (may be empty).
    pub token: Vec<u8>,
    /// Whether the context is established (GSS_S_COMPLETE) or needs the server's answer.
    pub complete: bool,
    /// The flags the established context provides (GSS_C_MUTUAL_FLAG, ...).
    pub flags: u32,
}

impl Context {
    pub fn new(cred: Credential, target: Name, flags: u32) -> Context {
        Context {
            lib: cred.lib,
            ctx: ptr::null_mut(),
            cred,
            target,
            flags,
        }
    }

    /// One step of gss_init_sec_context: with no input first, then with each of the
    /// server's tokens. Blocking: the first step may ask the KDC for a service ticket.
    pub fn step(&mut self, input: Option<&[u8]>) -> Result<Step, Failure> {
        let mech = oid(KRB5_MECH);
        let input = input.map(borrowed);
        let mut output = Owned::new(self.lib);
        let mut minor = 0;
        let mut ret_flags = 0u32;
        // SAFETY: the handles are ours; input outlives the call; output is released by
        // Owned; the channel bindings, actual mech and time are not wanted (null).
        let major = unsafe {
            (self.lib.f.init_sec_context)(
                &mut minor,
                self.cred.cred,
                &mut self.ctx,
                self.target.name,
                &mech,
                self.flags,
                0,
                ptr::null(),
                input
                    .as_ref()
                    .map_or(ptr::null(), |b| b as *const BufferDesc),
                ptr::null_mut(),
                &mut output.buffer,
                &mut ret_flags,
                ptr::null_mut(),
            )
        };
        let major = self.lib.check("gss_init_sec_context", major, minor)?;
        match major & 0xffff {
            S_COMPLETE | S_CONTINUE_NEEDED => Ok(Step {
                token: output.bytes().to_vec(),
                complete: major & 0xffff == S_COMPLETE,
                flags: ret_flags,
            }),
            // Supplementary bits alone (a duplicate or old token): not a step forward.
            _ => Err(Failure {
                call: "gss_init_sec_context",
                major,
                minor,
                text: self.lib.describe(major, minor),
            }),
        }
    }

    /// The plain text of a message the server wrapped (its integrity checked).
    pub fn unwrap(&self, message: &[u8]) -> Result<Vec<u8>, Failure> {
        let input = borrowed(message);
        let mut output = Owned::new(self.lib);
        let mut minor = 0;
        let mut conf = 0;
        let mut qop = 0;
        // SAFETY: an established context; input outlives the call; output released by Owned.
        let major = unsafe {
            (self.lib.f.unwrap)(
                &mut minor,
                self.ctx,
                &input,
                &mut output.buffer,
                &mut conf,
                &mut qop,
            )
        };
        self.lib.check("gss_unwrap", major, minor)?;
        Ok(output.bytes().to_vec())
    }

    /// A message wrapped for the server with integrity only (no confidentiality).
    pub fn wrap(&self, message: &[u8]) -> Result<Vec<u8>, Failure> {
        let input = borrowed(message);
        let mut output = Owned::new(self.lib);
        let mut minor = 0;
        let mut conf = 0;
        // SAFETY: an established context; input outlives the call; output released by Owned.
        let major = unsafe {
            (self.lib.f.wrap)(
                &mut minor,
                self.ctx,
                0,
                0,
                &input,
                &mut conf,
                &mut output.buffer,
            )
        };
        self.lib.check("gss_wrap", major, minor)?;
        Ok(output.bytes().to_vec())
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        if !self.ctx.is_null() {
            let mut minor = 0;
            // SAFETY: a context the library made, deleted once; no output token wanted.
            unsafe { (self.lib.f.delete_sec_context)(&mut minor, &mut self.ctx, ptr::null_mut()) };
        }
    }
}
