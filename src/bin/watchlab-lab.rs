//! `./x lab FILE…`: runs labs natively, with no browser — the engine and the console's kubectl,
//! each step in order, each task's solution and then its checks — and prints one line per step
//! (`ok` or `FAIL` with the check and what it saw). Exits 1 if any step failed or any file could
//! not be read or parsed (the file's line and column and the reason), 2 without files. A
//! trainer's CI runs it on their own labs; `./x test` runs it on the built-in ones.

use std::process::ExitCode;

use watchlab::lab::{run_lab, Lab};

fn main() -> ExitCode {
    let files: Vec<String> = std::env::args().skip(1).collect();
    if files.is_empty() {
        eprintln!("usage: watchlab-lab FILE.yaml…");
        return ExitCode::from(2);
    }
    let mut failed = false;
    for file in &files {
        println!("== {file}");
        let text = match std::fs::read_to_string(file) {
            Ok(t) => t,
            Err(e) => {
                println!("FAIL {file}: {e}");
                failed = true;
                continue;
            }
        };
        let lab = match Lab::parse(&text) {
            Ok(lab) => lab,
            Err(e) => {
                let sep = if e.line.is_some() { ":" } else { ": " };
                println!("FAIL {file}{sep}{e}");
                failed = true;
                continue;
            }
        };
        match run_lab(&lab) {
            Ok(reports) => {
                for report in reports {
                    failed |= report.failure.is_some();
                    println!("{report}");
                }
            }
            Err(e) => {
                println!("FAIL {file}: cluster: {e}");
                failed = true;
            }
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
