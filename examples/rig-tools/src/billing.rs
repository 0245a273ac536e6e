//! A fake billing system that can lose its answer after issuing an invoice.

use std::sync::Mutex;

use crate::{Invoice, InvoiceError};

/// A fake billing system that can lose its answer after issuing an invoice.
#[derive(Default)]
pub struct Billing {
    invoices: Mutex<Vec<Invoice>>,
    lose_next_answer: Mutex<bool>,
}

impl Billing {
    /// The invoices issued so far.
    pub fn invoices(&self) -> Vec<Invoice> {
        self.invoices.lock().unwrap().clone()
    }

    /// The next invoice is issued, but its answer is lost (the caller sees a timeout).
    pub fn lose_next_answer(&self) {
        *self.lose_next_answer.lock().unwrap() = true;
    }

    pub(crate) fn issue(&self, order_id: &str) -> Result<Invoice, InvoiceError> {
        let mut invoices = self.invoices.lock().unwrap();
        let invoice = Invoice {
            number: invoices.len() as u32 + 1,
            order_id: order_id.into(),
        };
        invoices.push(invoice.clone());
        match std::mem::take(&mut *self.lose_next_answer.lock().unwrap()) {
            true => Err(InvoiceError::Timeout),
            false => Ok(invoice),
        }
    }

    pub(crate) fn find(&self, order_id: &str) -> Option<Invoice> {
        self.invoices
            .lock()
            .unwrap()
            .iter()
            .find(|i| i.order_id == order_id)
            .cloned()
    }
}
