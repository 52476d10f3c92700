//! JSON lines in, JSON lines out, through a [`ModuleSlot`]: the protocol of
//! `podplan serve-module`.

use std::io::{BufRead, Write};

use super::{HostError, ModuleSlot};

/// Answers each JSON line of `input` with one line on `output`: the engine's answer
/// (a plan or `{"error": ...}`), or `{"hostError": {"message", "generation"}}` when
/// the module itself failed (trap, deadline, memory limit). Blank lines are skipped;
/// every answer is flushed at once.
///
/// # Errors
///
/// Reading or writing fails.
pub fn serve_json_lines(
    slot: &ModuleSlot,
    input: impl BufRead,
    mut output: impl Write,
) -> Result<(), HostError> {
    let io = |e: std::io::Error| HostError::io("<stdio>", &e);
    for line in input.split(b'\n') {
        let line = line.map_err(io)?;
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let (generation, answer) = slot.plan_json_on_generation(&line);
        let answer = answer.unwrap_or_else(|err| {
            serde_json::to_vec(&serde_json::json!({
                "hostError": {"message": err.to_string(), "generation": generation}
            }))
            .unwrap_or_default()
        });
        output.write_all(&answer).map_err(io)?;
        output.write_all(b"\n").map_err(io)?;
        output.flush().map_err(io)?;
    }
    Ok(())
}
