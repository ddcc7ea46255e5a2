//! The field selector parser: never panics; a parsed selector prints as text that parses back
//! to the same terms; escaping any value round-trips.
#![no_main]

use libfuzzer_sys::fuzz_target;
use watchlab_apimachinery::fields::{escape_value, unescape_value, FieldSelector};

fn terms(sel: &FieldSelector) -> Vec<String> {
    let mut t: Vec<String> = sel.requirements().iter().map(|r| r.to_string()).collect();
    t.sort();
    t
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    assert_eq!(unescape_value(&escape_value(text)).as_deref(), Ok(text));
    let Ok(sel) = FieldSelector::parse(text) else {
        return;
    };
    let shown = sel.to_string();
    match FieldSelector::parse(&shown) {
        Ok(again) => assert_eq!(terms(&again), terms(&sel), "{text:?} prints as {shown:?}"),
        Err(e) => panic!("{text:?} prints as {shown:?}, which does not parse: {e}"),
    }
    let _ = sel.matches(&|f: &str| Some(f.to_string()));
});
