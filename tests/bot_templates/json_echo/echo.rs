//! The Rust template's JSON reader, line by line: each line read back as JSON by Display,
//! or "error: ..." (tests/bot_templates/test_json_readers.py).  Built beside a copy of the
//! template's src/json.rs.

mod json;

use std::io::{self, BufRead, Write};

fn main() {
    let stdin = io::stdin();
    let stdout = io::stdout();
    let mut out = stdout.lock();
    for line in stdin.lock().lines() {
        let line = line.expect("UTF-8 input");
        match json::Json::parse(&line) {
            Ok(value) => writeln!(out, "{}", value).unwrap(),
            Err(problem) => writeln!(out, "error: {}", problem).unwrap(),
        }
    }
}
