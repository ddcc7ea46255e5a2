//! The console's command line: shell words, pipes, flags and every kubectl command, run against
//! a real API server. Never panics; shell quoting round-trips (input with NUL bytes is taken as
//! a list of words to quote, join and split again).
#![no_main]

use libfuzzer_sys::fuzz_target;
use watchlab_engine::apiserver::ApiServer;
use watchlab_kubectl::{shell, Kubectl};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if text.contains('\0') {
        let words: Vec<String> = text.split('\0').map(str::to_string).collect();
        let line = words
            .iter()
            .map(|w| shell::quote(w))
            .collect::<Vec<_>>()
            .join(" ");
        let parsed = shell::parse_pipeline(&line).map(|p| p.words);
        assert_eq!(parsed.as_ref(), Ok(&words), "{line:?}");
        return;
    }
    let _ = shell::parse_pipeline(text);
    let mut api = ApiServer::new(1);
    let mut k = Kubectl::new();
    k.set_file(
        "m.yaml",
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: fuzz\n",
    );
    let out = k.exec(text, &mut api);
    assert!(
        out.exit_code >= 0 && out.exit_code < 256,
        "{text:?} -> {}",
        out.exit_code
    );
    if let Some(mut f) = out.follow {
        let _ = f.poll(&mut api);
        f.stop(&mut api);
    }
});
