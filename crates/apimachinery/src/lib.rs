//! The vocabulary that watchlab's API server and its clients share, named after
//! `k8s.io/apimachinery`: label and field selectors, name and label validation, the `Status`
//! error object, request paths and query options, quantities, the client trait, and the `Table`
//! of server-side printing with what its cells need (client-go's JSONPath, the human durations of
//! AGE, Go's renderings of values).
#![cfg_attr(
    not(test),
    warn(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

pub mod client;
pub mod duration;
pub mod fields;
pub mod gofmt;
pub mod jsonpath;
pub mod labels;
pub mod quantity;
pub mod quote;
pub mod request;
pub mod rfc3339;
pub mod sort;
pub mod status;
pub mod table;
pub mod unstructured;
pub mod validation;
