//! Watch fan-out benchmark (filled in below).
fn main() {}
