//! The label selector parser: never panics; a parsed selector prints as text that parses back
//! to the same selector, and matching any label set never panics.
#![no_main]

use libfuzzer_sys::fuzz_target;
use watchlab_apimachinery::labels::{LabelSelector, Labels};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(sel) = LabelSelector::parse(text) else {
        return;
    };
    let shown = sel.to_string();
    match LabelSelector::parse(&shown) {
        Ok(again) => assert_eq!(again, sel, "{text:?} prints as {shown:?}"),
        Err(e) => panic!("{text:?} prints as {shown:?}, which does not parse: {e}"),
    }
    // The input's own words as labels: matching never panics.
    let labels: Labels = text
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| (w.to_string(), w.to_string()))
        .collect();
    let _ = sel.matches(&labels);
});
