//! How a guarded method turns its [`Outcome`] back into the signature a framework fixes.
//!
//! The generated code calls `(&Finish::new(..)).idemcheck_finish()`: [`FinishAsError`],
//! [`Outcome::into_tool_result`], the escalation becomes an error value. (In a crate that
//! depends on rmcp the expansion answers through [`crate::adapt::answer`] instead: a tool
//! result the model reads answers a non-completed outcome as an `isError` result.)

use std::cell::Cell;
use std::fmt::Display;

use crate::contract::Contract;
use crate::outcome::{Escalation, Outcome};

/// A finished guarded call waiting to be answered in the method's own return type.
pub struct Finish<'a, T, E> {
    outcome: Cell<Option<Outcome<T, E>>>,
    contract: &'a Contract,
}

impl<'a, T, E> Finish<'a, T, E> {
    /// The outcome of the call to `contract`'s tool.
    pub fn new(outcome: Outcome<T, E>, contract: &'a Contract) -> Self {
        Finish {
            outcome: Cell::new(Some(outcome)),
            contract,
        }
    }

    fn take(&self) -> Outcome<T, E> {
        match self.outcome.take() {
            Some(outcome) => outcome,
            // The generated code answers once; a second answer is a bug in the macro.
            None => unreachable!("a guarded call's outcome is answered once"),
        }
    }
}

/// The answer of any other method: [`Outcome::into_tool_result`].
pub trait FinishAsError<T, E> {
    /// Back to the method's return type.
    fn idemcheck_finish(&self) -> Result<T, E>;
}

impl<T, E: Display + From<Escalation>> FinishAsError<T, E> for &Finish<'_, T, E> {
    fn idemcheck_finish(&self) -> Result<T, E> {
        self.take().into_contract_result(self.contract)
    }
}

/// A `&mut` parameter lent to one attempt (or postcondition) at a time: a retrying guard
/// cannot hand the same `&mut` to two futures its closures make, so it keeps it here and
/// each attempt takes it for as long as it runs ([`Lent`] gives it back when dropped,
/// also when a timeout drops the attempt). The executor never runs two at once.
pub struct Lend<'a, T: ?Sized> {
    slot: std::sync::Mutex<Option<&'a mut T>>,
}

impl<'a, T: ?Sized> Lend<'a, T> {
    /// Keep `value` for the attempts.
    pub fn new(value: &'a mut T) -> Self {
        Lend {
            slot: std::sync::Mutex::new(Some(value)),
        }
    }

    /// Take the value for one attempt or postcondition.
    pub fn take(&self) -> Lent<'_, 'a, T> {
        let value = match self.slot.lock() {
            Ok(mut slot) => slot.take(),
            Err(poisoned) => poisoned.into_inner().take(),
        };
        match value {
            Some(value) => Lent {
                lend: self,
                value: Some(value),
            },
            // Attempts and postconditions run one after another, and each gives it back.
            None => unreachable!("a lent `&mut` parameter is used by one attempt at a time"),
        }
    }
}

/// The `&mut` parameter of a [`Lend`], for the attempt holding it.
pub struct Lent<'l, 'a, T: ?Sized> {
    lend: &'l Lend<'a, T>,
    value: Option<&'a mut T>,
}

impl<T: ?Sized> std::ops::Deref for Lent<'_, '_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        match &self.value {
            Some(v) => v,
            None => unreachable!("given back only on drop"),
        }
    }
}

impl<T: ?Sized> std::ops::DerefMut for Lent<'_, '_, T> {
    fn deref_mut(&mut self) -> &mut T {
        match &mut self.value {
            Some(v) => v,
            None => unreachable!("given back only on drop"),
        }
    }
}

impl<T: ?Sized> Drop for Lent<'_, '_, T> {
    fn drop(&mut self) {
        let value = self.value.take();
        match self.lend.slot.lock() {
            Ok(mut slot) => *slot = value,
            Err(poisoned) => *poisoned.into_inner() = value,
        }
    }
}

/// An attempt of a method guarded in place: its body as an async block whose output is the
/// method's return type (so `?` in the body converts as in the method).
pub fn attempt<R, F: std::future::Future<Output = R>>(future: F) -> F {
    future
}

/// Which [`crate::executor::ErrorCodec`] a tool's error type `E` gets: the generated code
/// calls `(&CodecFor::<E>::new()).idemcheck_codec()` with both traits in scope, and method
/// lookup takes [`CodecViaSerde`] when `E: Serialize + Deserialize` (its impl is on
/// `CodecFor` itself), else [`CodecViaText`] (on `&CodecFor`, one auto-ref further).
pub struct CodecFor<E>(std::marker::PhantomData<fn() -> E>);

impl<E> CodecFor<E> {
    /// The chooser for `E`.
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        CodecFor(std::marker::PhantomData)
    }
}

/// The codec of an error type that can be stored.
pub trait CodecViaSerde<E> {
    /// [`crate::executor::ErrorCodec::serde`].
    fn idemcheck_codec(&self) -> crate::executor::ErrorCodec<E>;
}

impl<E: serde::Serialize + serde::de::DeserializeOwned> CodecViaSerde<E> for CodecFor<E> {
    fn idemcheck_codec(&self) -> crate::executor::ErrorCodec<E> {
        crate::executor::ErrorCodec::serde()
    }
}

/// The codec of any other error type.
pub trait CodecViaText<E> {
    /// [`crate::executor::ErrorCodec::text`].
    fn idemcheck_codec(&self) -> crate::executor::ErrorCodec<E>;
}

impl<E> CodecViaText<E> for &CodecFor<E> {
    fn idemcheck_codec(&self) -> crate::executor::ErrorCodec<E> {
        crate::executor::ErrorCodec::text()
    }
}
