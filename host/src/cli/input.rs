//! Reading requests: a file or standard input, JSON or YAML, one document or one
//! request per line (JSON Lines).
//!
//! JSON goes straight to [`podplan_core::api::parse_request`] (exact error paths,
//! bare pods accepted). YAML is read into a `serde_json::Value` and handed to
//! [`podplan_core::api::parse_request_value`]; YAML syntax errors name their line
//! and column.

use std::fs::File;
use std::io::{self, BufRead, BufReader, IsTerminal, Read};
use std::path::{Path, PathBuf};

use clap::ValueEnum;
use podplan_core::limits::MAX_REQUEST_BYTES;
use podplan_core::{PlanError, PlanRequest};

use super::exit::CliError;

/// The syntax of the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum InputFormat {
    /// `.json` → JSON, `.yaml`/`.yml` → YAML, otherwise JSON if the text starts with
    /// `{`, else YAML.
    Auto,
    /// JSON.
    Json,
    /// YAML (one document).
    Yaml,
}

/// Where the input comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// Standard input (`-`).
    Stdin,
    /// A file.
    File(PathBuf),
}

impl Source {
    /// `-` is standard input; anything else a file path.
    pub fn from_arg(arg: &Path) -> Self {
        if arg == Path::new("-") {
            Self::Stdin
        } else {
            Self::File(arg.to_path_buf())
        }
    }

    /// A name for messages.
    pub fn describe(&self) -> String {
        match self {
            Self::Stdin => "standard input".to_string(),
            Self::File(path) => path.display().to_string(),
        }
    }

    /// The file path, if the source is a file.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Self::Stdin => None,
            Self::File(path) => Some(path),
        }
    }

    /// Opens the source for buffered reading. Reading an interactive terminal prints
    /// a hint first, so a bare `podplan plan` does not look like a hang.
    pub fn open(&self) -> Result<Box<dyn BufRead>, CliError> {
        match self {
            Self::Stdin => {
                let stdin = io::stdin();
                if stdin.is_terminal() {
                    eprintln!(
                        "podplan: reading the request from standard input (end it with Ctrl-D); \
                         see `podplan plan --help`"
                    );
                }
                Ok(Box::new(stdin.lock()))
            }
            Self::File(path) => {
                let file = File::open(path)
                    .map_err(|e| CliError::usage(format!("cannot open {}: {e}", path.display())))?;
                Ok(Box::new(BufReader::new(file)))
            }
        }
    }

    /// Reads the whole source. An input over the request size limit (read no further
    /// than one byte past it) or without any content is an input error naming the
    /// source ([`CliError::Input`], exit 2).
    pub fn read_document(&self) -> Result<Vec<u8>, CliError> {
        let reader = self.open()?;
        let mut bytes = Vec::new();
        let cap = u64::try_from(MAX_REQUEST_BYTES)
            .unwrap_or(u64::MAX)
            .saturating_add(1);
        reader
            .take(cap)
            .read_to_end(&mut bytes)
            .map_err(|e| CliError::usage(format!("cannot read {}: {e}", self.describe())))?;
        if bytes.len() > MAX_REQUEST_BYTES {
            return Err(CliError::Input(PlanError::limit(
                "",
                format!(
                    "{} is larger than the input limit of {MAX_REQUEST_BYTES} bytes (8 MiB)",
                    self.describe()
                ),
            )));
        }
        if strip_bom(&bytes).iter().all(u8::is_ascii_whitespace) {
            return Err(CliError::Input(PlanError::invalid(
                "",
                format!("{} is empty: there is no document to read", self.describe()),
            )));
        }
        Ok(bytes)
    }
}

/// The concrete syntax chosen for one document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Syntax {
    Json,
    Yaml,
}

fn detect(bytes: &[u8], format: InputFormat, path: Option<&Path>) -> Syntax {
    match format {
        InputFormat::Json => return Syntax::Json,
        InputFormat::Yaml => return Syntax::Yaml,
        InputFormat::Auto => {}
    }
    let ext = path
        .and_then(Path::extension)
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some("json" | "jsonl" | "ndjson") => Syntax::Json,
        Some("yaml" | "yml") => Syntax::Yaml,
        _ => match bytes.iter().find(|b| !b.is_ascii_whitespace()) {
            Some(b'{') => Syntax::Json,
            _ => Syntax::Yaml,
        },
    }
}

/// Drops a UTF-8 byte-order mark.
fn strip_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes)
}

/// Parses one request document (JSON or YAML; a plan request or a bare `v1.Pod`).
pub fn parse_document(
    bytes: &[u8],
    format: InputFormat,
    path: Option<&Path>,
) -> Result<PlanRequest, PlanError> {
    let bytes = strip_bom(bytes);
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(PlanError::invalid(
            "",
            "the input is empty: expected a plan request or a v1.Pod, as JSON or YAML",
        ));
    }
    match detect(bytes, format, path) {
        Syntax::Json => podplan_core::api::parse_request(bytes),
        Syntax::Yaml => parse_yaml(bytes),
    }
}

/// YAML → `serde_json::Value` (read as kubectl reads it, [`podplan_host::yaml`]) →
/// request. Syntax errors carry line and column.
fn parse_yaml(bytes: &[u8]) -> Result<PlanRequest, PlanError> {
    if bytes.len() > MAX_REQUEST_BYTES {
        return Err(PlanError::limit(
            "",
            format!("the request is larger than the limit of {MAX_REQUEST_BYTES} bytes"),
        ));
    }
    let value = yaml_document(bytes)?;
    podplan_core::api::parse_request_value(value)
}

/// The text of a YAML document (UTF-8, a byte-order mark dropped).
pub fn utf8(bytes: &[u8]) -> Result<&str, PlanError> {
    std::str::from_utf8(strip_bom(bytes)).map_err(|e| {
        PlanError::invalid(
            "",
            format!("the input is not UTF-8 text (byte {})", e.valid_up_to()),
        )
    })
}

/// One YAML (or JSON) document as JSON, read as kubectl reads it.
pub fn yaml_document(bytes: &[u8]) -> Result<serde_json::Value, PlanError> {
    podplan_host::yaml::document(utf8(bytes)?)
}

/// The documents of a file as JSON: JSON (one value, or several concatenated, as
/// kubectl accepts them) when the text starts with `{`, otherwise a YAML stream (empty
/// documents skipped).
pub fn documents(bytes: &[u8]) -> Result<Vec<serde_json::Value>, PlanError> {
    let text = utf8(bytes)?;
    if text.trim_start().starts_with('{') {
        return serde_json::Deserializer::from_str(text)
            .into_iter::<serde_json::Value>()
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| PlanError::invalid("", format!("invalid JSON: {e}")));
    }
    podplan_host::yaml::documents(text)
}

/// Parses one line of JSON Lines input.
pub fn parse_line(line: &[u8]) -> Result<PlanRequest, PlanError> {
    podplan_core::api::parse_request(strip_bom(line))
}

/// One line read by [`read_line`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Line {
    /// The line (without its terminator) is in the buffer.
    Complete,
    /// The line was longer than the limit; it was skipped, the buffer is empty.
    TooLong,
}

/// Reads the next line into `buf` (cleared first, `\n` and a trailing `\r` removed),
/// keeping at most `max` bytes of it: a longer line is consumed and reported as
/// [`Line::TooLong`] without holding it in memory. `None` at the end of the input.
pub fn read_line<R: BufRead + ?Sized>(
    reader: &mut R,
    buf: &mut Vec<u8>,
    max: usize,
) -> io::Result<Option<Line>> {
    buf.clear();
    let mut too_long = false;
    let mut seen_any = false;
    loop {
        let available = match reader.fill_buf() {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            break;
        }
        seen_any = true;
        let newline = available.iter().position(|&b| b == b'\n');
        let chunk = match newline {
            Some(i) => available.get(..i).unwrap_or_default(),
            None => available,
        };
        if !too_long {
            if buf.len().saturating_add(chunk.len()) > max {
                too_long = true;
                buf.clear();
            } else {
                buf.extend_from_slice(chunk);
            }
        }
        let consumed = chunk.len() + usize::from(newline.is_some());
        reader.consume(consumed);
        if newline.is_some() {
            break;
        }
    }
    if !seen_any {
        return Ok(None);
    }
    if buf.last() == Some(&b'\r') {
        buf.pop();
    }
    Ok(Some(if too_long {
        Line::TooLong
    } else {
        Line::Complete
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8], max: usize) -> Vec<(Option<Line>, Vec<u8>)> {
        let mut reader = io::BufReader::with_capacity(4, input);
        let mut out = Vec::new();
        let mut buf = Vec::new();
        loop {
            let line = read_line(&mut reader, &mut buf, max).unwrap();
            out.push((line, buf.clone()));
            if line.is_none() {
                return out;
            }
        }
    }

    #[test]
    fn lines_are_split_and_trimmed_across_buffer_refills() {
        let got = lines(b"abcdef\r\n\nxy", 100);
        assert_eq!(
            got,
            vec![
                (Some(Line::Complete), b"abcdef".to_vec()),
                (Some(Line::Complete), Vec::new()),
                (Some(Line::Complete), b"xy".to_vec()),
                (None, Vec::new()),
            ]
        );
    }

    #[test]
    fn an_overlong_line_is_skipped_and_the_next_one_read() {
        let got = lines(b"0123456789\nok\n", 5);
        assert_eq!(
            got,
            vec![
                (Some(Line::TooLong), Vec::new()),
                (Some(Line::Complete), b"ok".to_vec()),
                (None, Vec::new()),
            ]
        );
    }

    #[test]
    fn syntax_is_detected_by_extension_then_content() {
        let yaml = Some(Path::new("pod.yaml"));
        assert_eq!(detect(b"{}", InputFormat::Auto, yaml), Syntax::Yaml);
        assert_eq!(
            detect(b"a: 1", InputFormat::Auto, Some(Path::new("x.json"))),
            Syntax::Json
        );
        assert_eq!(
            detect(b"  \n{\"a\":1}", InputFormat::Auto, None),
            Syntax::Json
        );
        assert_eq!(
            detect(b"pod:\n  spec: {}", InputFormat::Auto, None),
            Syntax::Yaml
        );
        assert_eq!(detect(b"a: 1", InputFormat::Json, yaml), Syntax::Json);
    }

    #[test]
    fn yaml_errors_name_line_and_column() {
        let err = parse_document(b"pod:\n  spec: [\n", InputFormat::Yaml, None).unwrap_err();
        assert!(err.message.contains("line"), "{}", err.message);
        assert!(err.message.contains("column"), "{}", err.message);
    }

    #[test]
    fn yaml_requests_and_bare_pods_parse() {
        let req = parse_document(
            b"pod:\n  metadata: {name: web}\n  spec:\n    containers:\n    - {name: app, image: nginx}\n",
            InputFormat::Auto,
            None,
        )
        .unwrap();
        assert_eq!(req.pod.metadata.name.as_deref(), Some("web"));
        let bare = parse_document(
            b"apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: app\n",
            InputFormat::Auto,
            None,
        )
        .unwrap();
        assert!(bare.runtime_status.is_none());
        assert_eq!(bare.pod.spec.map(|s| s.containers.len()), Some(1));
    }

    #[test]
    fn empty_input_is_an_error_not_a_default_request() {
        assert!(parse_document(b" \n", InputFormat::Auto, None).is_err());
        assert!(parse_document(b"\xEF\xBB\xBF", InputFormat::Auto, None).is_err());
    }

    #[test]
    fn a_bom_is_ignored() {
        let req = parse_document(
            b"\xEF\xBB\xBF{\"spec\":{\"containers\":[{\"name\":\"a\"}]}}",
            InputFormat::Auto,
            None,
        );
        assert!(req.is_ok(), "{req:?}");
    }
}
