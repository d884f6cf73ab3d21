//! `Op<'c>`: an op found once by name and called many times, with tensor
//! inputs by position and attributes by name.
//!
//! ```text
//! let sum = ctx.op("sum")?;
//! let y = sum.call(&[&x], &[("dims", vec![1].into()), ("keepdim", true.into())])?;
//! ```
//!
//! The binding checks only what the C API cannot see: attribute *names*
//! (the C call takes attributes by position, so the binding maps each name
//! to its schema slot and fills the gaps with SY_ATTR_DEFAULT). Everything
//! else — the number of tensors, attribute kinds, dtypes, shapes, foreign
//! handles — is checked by the C API, whose message names the op and the
//! argument; the binding passes it on unchanged.

use std::ffi::CString;
use std::marker::PhantomData;
use std::os::raw::c_char;
use std::ptr;

use crate::context::Context;
use crate::dtype::DType;
use crate::error::{check, Error, Result};
use crate::ffi;
use crate::tensor::Tensor;
use crate::util;

/// An attribute value (a non-tensor argument). `From` conversions let a
/// call write `2.into()`, `vec![1, 2].into()`, `"tanh".into()`.
#[derive(Clone, Debug, PartialEq)]
pub enum Attr {
    Int(i64),
    Float(f64),
    Bool(bool),
    Ints(Vec<i64>),
    Str(String),
    DType(DType),
    /// None, for an optional argument (`int? dim=None`).
    None,
}

impl From<i64> for Attr {
    fn from(v: i64) -> Attr {
        Attr::Int(v)
    }
}
impl From<i32> for Attr {
    fn from(v: i32) -> Attr {
        Attr::Int(v.into())
    }
}
impl From<f64> for Attr {
    fn from(v: f64) -> Attr {
        Attr::Float(v)
    }
}
impl From<f32> for Attr {
    fn from(v: f32) -> Attr {
        Attr::Float(v.into())
    }
}
impl From<bool> for Attr {
    fn from(v: bool) -> Attr {
        Attr::Bool(v)
    }
}
impl From<Vec<i64>> for Attr {
    fn from(v: Vec<i64>) -> Attr {
        Attr::Ints(v)
    }
}
impl From<&[i64]> for Attr {
    fn from(v: &[i64]) -> Attr {
        Attr::Ints(v.to_vec())
    }
}
impl From<&str> for Attr {
    fn from(v: &str) -> Attr {
        Attr::Str(v.to_owned())
    }
}
impl From<String> for Attr {
    fn from(v: String) -> Attr {
        Attr::Str(v)
    }
}
impl From<DType> for Attr {
    fn from(v: DType) -> Attr {
        Attr::DType(v)
    }
}

/// Argument kinds as schema text writes them (`sy_arg_kind_t`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgKind {
    Tensor,
    TensorList,
    Int,
    IntList,
    Float,
    Bool,
    Scalar,
    Str,
    DType,
    /// A communicator (collective ops, C API 1.2). The crate makes none yet:
    /// such ops are listed, not callable from Rust.
    Communicator,
}

/// One argument of an op's schema.
#[derive(Clone, Debug)]
pub struct ArgInfo {
    pub name: String,
    pub kind: ArgKind,
    /// "Tensor", "int[]", … as the schema writes it.
    pub kind_name: String,
    pub optional: bool,
    pub has_default: bool,
    /// The default as schema text prints it ("1e-06"), or "".
    pub default_text: String,
    /// Position among the tensor inputs (tensor arguments only).
    pub tensor_index: Option<usize>,
    /// Position among the attributes (non-tensor arguments only).
    pub attr_index: Option<usize>,
}

/// One op overload of a context.
#[derive(Clone)]
pub struct Op<'c> {
    handle: ffi::sy_op_t,
    full_name: String,
    schema: String,
    owner: String,
    num_outputs: usize,
    num_attrs: usize,
    args: Vec<ArgInfo>,
    _context: PhantomData<&'c Context>,
}

// SAFETY: switchyard.h, "Threads": every function is thread-safe; an op
// handle is a token, and the rest of an Op is owned data.
unsafe impl Send for Op<'_> {}
unsafe impl Sync for Op<'_> {}

fn arg_kind(raw: i32) -> Result<ArgKind> {
    Ok(match raw {
        ffi::SY_ARG_TENSOR => ArgKind::Tensor,
        ffi::SY_ARG_TENSOR_LIST => ArgKind::TensorList,
        ffi::SY_ARG_INT => ArgKind::Int,
        ffi::SY_ARG_INT_LIST => ArgKind::IntList,
        ffi::SY_ARG_FLOAT => ArgKind::Float,
        ffi::SY_ARG_BOOL => ArgKind::Bool,
        ffi::SY_ARG_SCALAR => ArgKind::Scalar,
        ffi::SY_ARG_STRING => ArgKind::Str,
        ffi::SY_ARG_DTYPE => ArgKind::DType,
        ffi::SY_ARG_COMMUNICATOR => ArgKind::Communicator,
        other => {
            return Err(Error::new(
                crate::Code::Unimplemented,
                format!("argument kind {other} is newer than this binding; update the crate"),
            ))
        }
    })
}

fn index(raw: i32) -> Option<usize> {
    usize::try_from(raw).ok()
}

/// The C attribute array of one call, and the buffers it points into.
struct EncodedAttrs {
    attrs: Vec<ffi::sy_attr_t>,
    _strings: Vec<CString>,
}

impl<'c> Op<'c> {
    pub(crate) fn find(context: &'c Context, name: &str) -> Result<Op<'c>> {
        let c_name = util::cstring("op", name)?;
        let mut handle: ffi::sy_op_t = ptr::null_mut();
        // SAFETY: valid handle, string and out-pointer.
        check(unsafe { ffi::sy_op_find(context.raw(), c_name.as_ptr(), &mut handle) })?;
        Op::from_handle(handle)
    }

    pub(crate) fn all(context: &'c Context) -> Result<Vec<Op<'c>>> {
        let mut count = 0i32;
        // SAFETY: valid handle and out-pointer.
        check(unsafe { ffi::sy_op_count(context.raw(), &mut count) })?;
        (0..count)
            .map(|i| {
                let mut handle: ffi::sy_op_t = ptr::null_mut();
                // SAFETY: valid handle and out-pointer.
                check(unsafe { ffi::sy_op_get(context.raw(), i, &mut handle) })?;
                Op::from_handle(handle)
            })
            .collect()
    }

    fn from_handle(handle: ffi::sy_op_t) -> Result<Op<'c>> {
        let mut info: ffi::sy_op_info_t = ffi::out_struct();
        // SAFETY: the out-struct has struct_size set.
        check(unsafe { ffi::sy_op_get_info(handle, &mut info) })?;
        let mut args = Vec::with_capacity(info.num_args.max(0) as usize);
        for i in 0..info.num_args {
            let mut a: ffi::sy_op_arg_t = ffi::out_struct();
            // SAFETY: the out-struct has struct_size set.
            check(unsafe { ffi::sy_op_get_arg(handle, i, &mut a) })?;
            // SAFETY: the strings live as long as the context; copied here.
            args.push(unsafe {
                ArgInfo {
                    name: util::string(a.name),
                    kind: arg_kind(a.kind)?,
                    kind_name: util::string(a.kind_name),
                    optional: a.optional != 0,
                    has_default: a.has_default != 0,
                    default_text: util::string(a.default_text),
                    tensor_index: index(a.tensor_index),
                    attr_index: index(a.attr_index),
                }
            });
        }
        // SAFETY: as above.
        unsafe {
            Ok(Op {
                handle,
                full_name: util::string(info.full_name),
                schema: util::string(info.schema),
                owner: util::string(info.owner),
                num_outputs: info.num_outputs.max(0) as usize,
                num_attrs: info.num_attrs.max(0) as usize,
                args,
                _context: PhantomData,
            })
        }
    }

    /// "add.Tensor", "cuda::flash_attention".
    pub fn full_name(&self) -> &str {
        &self.full_name
    }

    /// The schema text: "sum(Tensor x, int[] dims=[], bool keepdim=False) -> Tensor".
    pub fn schema(&self) -> &str {
        &self.schema
    }

    /// "core" or the plugin that registered it.
    pub fn owner(&self) -> &str {
        &self.owner
    }

    /// The arguments in schema order.
    pub fn args(&self) -> &[ArgInfo] {
        &self.args
    }

    /// How many tensors a call returns.
    pub fn num_outputs(&self) -> usize {
        self.num_outputs
    }

    fn bind_error(&self, what: String) -> Error {
        Error::invalid(format!("{}: {what}; schema: {}", self.full_name, self.schema))
    }

    fn encode(&self, attrs: &[(&str, Attr)]) -> Result<EncodedAttrs> {
        let default =
            ffi::sy_attr_t { kind: ffi::SY_ATTR_DEFAULT, reserved: 0, value: ffi::sy_attr_value_t { i: 0 } };
        let mut slots = vec![default; self.num_attrs];
        let mut given = vec![false; self.num_attrs];
        let mut strings = Vec::new();
        for (name, value) in attrs {
            let arg = self.args.iter().find(|a| a.name == *name).ok_or_else(|| {
                let known: Vec<&str> =
                    self.args.iter().filter(|a| a.attr_index.is_some()).map(|a| a.name.as_str()).collect();
                self.bind_error(format!(
                    "unknown attribute '{name}' (its attributes: {})",
                    if known.is_empty() { "none".to_owned() } else { known.join(", ") }
                ))
            })?;
            let slot = match arg.attr_index {
                Some(slot) if slot < slots.len() => slot,
                _ => {
                    return Err(self.bind_error(format!(
                        "'{name}' is a {} argument; pass it among the tensor inputs, not as an attribute",
                        arg.kind_name
                    )))
                }
            };
            if given[slot] {
                return Err(self.bind_error(format!("attribute '{name}' is given twice")));
            }
            given[slot] = true;
            slots[slot] = encode_value(&arg.name, value, &mut strings)?;
        }
        // Trailing defaults need not be sent; the C API fills them in.
        while slots.last().map_or(false, |a| a.kind == ffi::SY_ATTR_DEFAULT) {
            slots.pop();
        }
        Ok(EncodedAttrs { attrs: slots, _strings: strings })
    }

    /// The C handles of `inputs`; trailing optional tensor arguments left
    /// out (`layer_norm(x, [8])`) are passed as NULL, as the schema's
    /// `Tensor?` allows. Anything else is left for the C API to judge.
    fn handles(&self, inputs: &[Option<&Tensor<'c>>]) -> Vec<ffi::sy_tensor_t> {
        let mut handles: Vec<ffi::sy_tensor_t> =
            inputs.iter().map(|t| t.map_or(ptr::null_mut(), |t| t.raw())).collect();
        let has_list = self.args.iter().any(|a| a.kind == ArgKind::TensorList);
        if !has_list {
            let tensors: Vec<&ArgInfo> = self.args.iter().filter(|a| a.kind == ArgKind::Tensor).collect();
            if handles.len() < tensors.len() && tensors[handles.len()..].iter().all(|a| a.optional) {
                handles.resize(tensors.len(), ptr::null_mut());
            }
        }
        handles
    }

    /// Calls the op on tensor inputs (in schema order; a `Tensor[]`
    /// argument takes as many consecutive tensors as it has elements) and
    /// named attributes (the rest take their schema defaults). Returns the
    /// op's one output; see `call_multi` for ops with several.
    pub fn call(&self, inputs: &[&Tensor<'c>], attrs: &[(&str, Attr)]) -> Result<Tensor<'c>> {
        let inputs: Vec<Option<&Tensor<'c>>> = inputs.iter().map(|t| Some(*t)).collect();
        self.call_optional(&inputs, attrs)
    }

    /// As `call`, with `None` for an omitted optional tensor argument
    /// (`layer_norm(x, …, weight=None, bias=b)`).
    pub fn call_optional(
        &self,
        inputs: &[Option<&Tensor<'c>>],
        attrs: &[(&str, Attr)],
    ) -> Result<Tensor<'c>> {
        if self.num_outputs != 1 {
            return Err(
                self.bind_error(format!("returns {} tensors, not one; use call_multi", self.num_outputs))
            );
        }
        Ok(self.call_multi(inputs, attrs)?.remove(0))
    }

    /// Calls the op and returns all of its outputs.
    pub fn call_multi(
        &self,
        inputs: &[Option<&Tensor<'c>>],
        attrs: &[(&str, Attr)],
    ) -> Result<Vec<Tensor<'c>>> {
        let encoded = self.encode(attrs)?;
        let handles = self.handles(inputs);
        let mut outputs: Vec<ffi::sy_tensor_t> = vec![ptr::null_mut(); self.num_outputs];
        // SAFETY: every array is valid for its count through the call; the
        // attribute buffers live in `encoded` and `attrs`.
        check(unsafe {
            ffi::sy_op_call(
                self.handle,
                handles.as_ptr(),
                util::count("inputs", handles.len())?,
                encoded.attrs.as_ptr(),
                util::count("attrs", encoded.attrs.len())?,
                outputs.as_mut_ptr(),
                util::count("outputs", outputs.len())?,
            )
        })?;
        // SAFETY: on success each output is a new reference that is ours.
        Ok(outputs.into_iter().map(|h| unsafe { Tensor::from_owned(h) }).collect())
    }

    /// Calls the op into existing outputs, which must have exactly the
    /// dtype, shape and device the op produces. Allocates nothing.
    pub fn call_out(
        &self,
        inputs: &[Option<&Tensor<'c>>],
        attrs: &[(&str, Attr)],
        outputs: &[&Tensor<'c>],
    ) -> Result<()> {
        let encoded = self.encode(attrs)?;
        let handles = self.handles(inputs);
        let outs: Vec<ffi::sy_tensor_t> = outputs.iter().map(|t| t.raw()).collect();
        // SAFETY: as in call_multi; outputs are borrowed handles.
        check(unsafe {
            ffi::sy_op_call_out(
                self.handle,
                handles.as_ptr(),
                util::count("inputs", handles.len())?,
                encoded.attrs.as_ptr(),
                util::count("attrs", encoded.attrs.len())?,
                outs.as_ptr(),
                util::count("outputs", outs.len())?,
            )
        })
    }

    /// How a call with these arguments would run (which kernel of which
    /// plugin, a view, a decomposition), without running it.
    pub fn explain(&self, inputs: &[&Tensor<'c>], attrs: &[(&str, Attr)]) -> Result<String> {
        let encoded = self.encode(attrs)?;
        let inputs: Vec<Option<&Tensor<'c>>> = inputs.iter().map(|t| Some(*t)).collect();
        let handles = self.handles(&inputs);
        let mut text: *const c_char = ptr::null();
        // SAFETY: as in call_multi; the text is copied before the next call.
        check(unsafe {
            ffi::sy_op_explain(
                self.handle,
                handles.as_ptr(),
                util::count("inputs", handles.len())?,
                encoded.attrs.as_ptr(),
                util::count("attrs", encoded.attrs.len())?,
                &mut text,
            )
        })?;
        Ok(unsafe { util::string(text) })
    }
}

/// The sy_attr_t of one value. Kinds are not matched against the schema
/// here: the C API does it (an int for a float is fine there, a bool for
/// an int is not) and names the argument in its error.
fn encode_value(name: &str, value: &Attr, strings: &mut Vec<CString>) -> Result<ffi::sy_attr_t> {
    let (kind, value) = match value {
        Attr::Int(i) => (ffi::SY_ATTR_INT, ffi::sy_attr_value_t { i: *i }),
        Attr::Float(f) => (ffi::SY_ATTR_FLOAT, ffi::sy_attr_value_t { f: *f }),
        Attr::Bool(b) => (ffi::SY_ATTR_BOOL, ffi::sy_attr_value_t { b: *b as i32 }),
        Attr::DType(d) => (ffi::SY_ATTR_DTYPE, ffi::sy_attr_value_t { dtype: d.raw() }),
        Attr::None => (ffi::SY_ATTR_NONE, ffi::sy_attr_value_t { i: 0 }),
        Attr::Ints(v) => (
            ffi::SY_ATTR_INTS,
            ffi::sy_attr_value_t { ints: ffi::sy_attr_ints_t { data: v.as_ptr(), size: v.len() as i64 } },
        ),
        Attr::Str(s) => {
            let c = util::cstring(&format!("attribute '{name}'"), s)?;
            // The CString's heap buffer does not move when the CString does.
            let data = c.as_ptr();
            strings.push(c);
            (
                ffi::SY_ATTR_STRING,
                ffi::sy_attr_value_t { str: ffi::sy_attr_str_t { data, size: s.len() as i64 } },
            )
        }
    };
    Ok(ffi::sy_attr_t { kind, reserved: 0, value })
}

impl std::fmt::Debug for Op<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Op({})", self.schema)
    }
}
