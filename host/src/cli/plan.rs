//! `podplan plan`: one request (or a stream of them) in, the plan out.

use std::io::{self, Write};
use std::path::PathBuf;

use clap::Args;
use podplan_core::limits::MAX_REQUEST_BYTES;
use podplan_core::PlanError;
use podplan_wasmhost::{answer, Planner};

use super::crictl;
use super::engine::{self, EngineFlag, IsolationFlag};
use super::exit::{CliError, Status};
use super::input::{self, InputFormat, Line, Source};
use super::output::{self, Output, OutputFormat};

const AFTER_HELP: &str = "\
Input:
  A plan request ({\"pod\": ..., \"runtimeStatus\": ..., \"probes\": ..., ...}, see the plan
  contract) or a bare v1.Pod, which means \"nothing exists yet\". JSON or YAML: `.json`
  and `.yaml`/`.yml` files are read as such, anything else (and standard input) as JSON
  when it starts with `{`, otherwise as YAML.

Errors:
  An input the engine rejects exits with 2. In json and yaml modes the contract's error
  object {\"error\": {\"kind\", \"path\", \"message\"}} is printed on stdout, and a one-line
  message on stderr. With --jsonl a bad line gets its error object on its own output
  line, the stream goes on, and the exit code is 0.

Examples:
  podplan plan pod.yaml                          a bare pod: what happens first
  podplan plan request.json --output text        explain a sync in words
  kubectl get pod web -o json | podplan plan     plan from the API server's pod
  podplan plan --jsonl requests.jsonl > plans.jsonl
  podplan plan pod.yaml --emit-crictl out/       write pod-config.json and container-*.json";

/// Arguments of `podplan plan`.
#[derive(Debug, Args)]
#[command(after_long_help = AFTER_HELP)]
pub struct PlanArgs {
    /// The request file, or `-` for standard input.
    #[arg(value_name = "FILE", default_value = "-")]
    pub input: PathBuf,

    /// How to print the plan: the contract's JSON, the same as YAML, or readable text.
    #[arg(short, long, value_enum, default_value_t = OutputFormat::Json)]
    pub output: OutputFormat,

    /// Indent the JSON output (the default when stdout is a terminal).
    #[arg(long)]
    pub pretty: bool,

    /// The input syntax; `auto` decides by file extension, then by content.
    #[arg(long, value_enum, default_value_t = InputFormat::Auto, value_name = "FORMAT")]
    pub input_format: InputFormat,

    /// JSON Lines: one JSON request per input line, one compact plan per output line,
    /// in order, written as each line is read. Empty lines are skipped. A bad line gets
    /// {"error": {...}} on its output line and the stream goes on; the exit code is 0
    /// even when some lines were bad.
    #[arg(long, conflicts_with_all = ["pretty", "emit_crictl"])]
    pub jsonl: bool,

    /// Also write the plan's CRI configs into DIR for crictl: pod-config.json and
    /// container-NAME.json per container the plan creates.
    #[arg(long, value_name = "DIR")]
    pub emit_crictl: Option<PathBuf>,

    /// Print the configs in strict proto3 JSON (env values, `bytes` in the 1.37 cri-api,
    /// as base64) instead of the readable form; the request option `proto3Json: true`
    /// does the same.
    #[arg(long)]
    pub proto3_json: bool,

    /// The engine that computes the plan.
    #[arg(long, value_enum, default_value_t = EngineFlag::Native)]
    pub engine: EngineFlag,

    /// The podplan wasm module, for --engine wasm.
    #[arg(long, value_name = "FILE")]
    pub module: Option<PathBuf>,

    /// With --engine wasm: reuse warm module instances (`pooled`, the default) or give
    /// every request a fresh one (`per-call`).
    #[arg(long, value_enum, default_value_t = IsolationFlag::Pooled)]
    pub isolation: IsolationFlag,
}

/// Runs `podplan plan`.
pub fn run(args: &PlanArgs) -> Result<Status, CliError> {
    let planner = engine::planner(args.engine, args.module.as_deref(), args.isolation)?;
    let source = Source::from_arg(&args.input);
    if args.jsonl {
        if args.output != OutputFormat::Json {
            return Err(CliError::usage("--jsonl prints JSON only; drop --output"));
        }
        if args.input_format == InputFormat::Yaml {
            return Err(CliError::usage(
                "--jsonl reads JSON lines; YAML is not line-based",
            ));
        }
        return run_jsonl(&planner, &source, args.proto3_json);
    }

    let output = Output::new(args.output, args.pretty);
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let bytes = match source.read_document() {
        Ok(bytes) => bytes,
        Err(CliError::Input(error)) => {
            output.error(&mut out, &error)?;
            return Err(CliError::Reported);
        }
        Err(e) => return Err(e),
    };
    tracing::debug!(bytes = bytes.len(), source = %source.describe(), "read the request");
    if args.output == OutputFormat::Json
        && !output.pretty
        && !args.proto3_json
        && args.emit_crictl.is_none()
        && is_json(&bytes, args.input_format, source.path())
    {
        // Compact JSON in and out: the engine's answer bytes are what is printed.
        return print_answer(
            &output,
            &mut out,
            &planner.plan_json_or_limit(strip_bom(&bytes)),
        );
    }
    let mut strict = args.proto3_json;
    let result =
        input::parse_document(&bytes, args.input_format, source.path()).and_then(|request| {
            strict |= request.proto3_json;
            planner.plan_or_limit(&request)
        });
    match result {
        Ok(plan) => {
            output.plan(&mut out, &plan, strict)?;
            if let Some(dir) = &args.emit_crictl {
                let written = crictl::emit(&plan, dir)?;
                eprintln!(
                    "podplan: wrote {} crictl file(s) to {}",
                    written.len(),
                    dir.display()
                );
            }
            Ok(Status::Success)
        }
        Err(error) => {
            output.error(&mut out, &error)?;
            Err(CliError::Reported)
        }
    }
}

/// One request per line in, one answer per line out, flushed line by line.
fn run_jsonl(planner: &Planner, source: &Source, strict_flag: bool) -> Result<Status, CliError> {
    let mut reader = source.open()?;
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let mut buf = Vec::new();
    let mut line_no: u64 = 0;
    let (mut answered, mut rejected) = (0_u64, 0_u64);
    loop {
        let line = input::read_line(&mut reader, &mut buf, MAX_REQUEST_BYTES)
            .map_err(|e| CliError::usage(format!("cannot read {}: {e}", source.describe())))?;
        let Some(line) = line else { break };
        line_no += 1;
        let mut answer = match line {
            Line::TooLong => podplan_core::api::answer_bytes(Err(PlanError::limit(
                "",
                format!("the line is longer than the request limit of {MAX_REQUEST_BYTES} bytes"),
            ))),
            Line::Complete if buf.iter().all(u8::is_ascii_whitespace) => continue,
            // The line's bytes to the engine, its answer bytes to the output: no JSON
            // pass of the host's own (the engine's `plan_json` prints exactly what a
            // typed plan re-serialised would, `proto3Json` requests included).
            Line::Complete if !strict_flag => planner.plan_json_or_limit(strip_bom(&buf)),
            Line::Complete => strict_answer(planner, &buf),
        };
        if answer::is_error(&answer) {
            rejected += 1;
            let error = answer::error_of(&answer).unwrap_or_else(|| {
                PlanError::invalid("", "the engine answered a malformed error object")
            });
            eprintln!("podplan: line {line_no}: {}", output::one_line(&error));
        }
        answered += 1;
        answer.push(b'\n');
        out.write_all(&answer)
            .and_then(|()| out.flush())
            .map_err(|e| CliError::io("cannot write to standard output", &e))?;
    }
    tracing::info!(answered, rejected, "jsonl stream done");
    Ok(Status::Success)
}

/// `--proto3-json` on a request that may not ask for it: the typed plan, its configs
/// re-serialised in strict proto3 JSON.
fn strict_answer(planner: &Planner, line: &[u8]) -> Vec<u8> {
    match input::parse_line(line).and_then(|request| planner.plan_or_limit(&request)) {
        Ok(plan) => serde_json::to_vec(&podplan_core::api::strict_value(&plan)).unwrap_or_default(),
        Err(error) => podplan_core::api::answer_bytes(Err(error)),
    }
}

/// Prints one document's answer bytes as they are (a plan) or as [`Output::error`]
/// reports an input error (the error object on stdout, a line on stderr, exit 2).
fn print_answer(output: &Output, out: &mut dyn Write, answer: &[u8]) -> Result<Status, CliError> {
    if answer::is_error(answer) {
        let error = answer::error_of(answer).unwrap_or_else(|| {
            PlanError::invalid("", "the engine answered a malformed error object")
        });
        output.error(out, &error)?;
        return Err(CliError::Reported);
    }
    out.write_all(answer)
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush())
        .map_err(|e| CliError::io("cannot write to standard output", &e))?;
    Ok(Status::Success)
}

/// Whether the document is surely read as JSON by [`input::parse_document`]: it starts
/// with `{` and neither `--input-format yaml` nor a `.yaml`/`.yml` name says otherwise.
/// (Anything else takes the typed path, which decides exactly.)
fn is_json(bytes: &[u8], format: InputFormat, path: Option<&std::path::Path>) -> bool {
    let yaml_name = path
        .and_then(std::path::Path::extension)
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("yaml") || e.eq_ignore_ascii_case("yml"));
    let starts_with_brace = strip_bom(bytes)
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|&b| b == b'{');
    starts_with_brace
        && match format {
            InputFormat::Json => true,
            InputFormat::Yaml => false,
            InputFormat::Auto => !yaml_name,
        }
}

/// Drops a UTF-8 byte-order mark, as [`input::parse_line`] does.
fn strip_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes)
}
