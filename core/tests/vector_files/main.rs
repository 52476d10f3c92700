//! podplan-core's per-file vector tests, one generated test per JSON file
//! (`datatest-stable`, hence its own `harness = false` binary; every other integration
//! test is in the `all` binary, `core/tests/all/`). The test names are the checking
//! function's name, `::`, then the file's path under its root (`check::actions/…` for the
//! vendored vectors, `check_actions::actions/…` for our own), as when these were two files.
//!
//! Index:

mod conformance; // every vendored conformance vector (`conformance/` at the repo root), with the deviations `conformance/deviations.json` lists
mod own_vectors; // our own vectors (`core/tests/vectors/`: actions, config, hooks, termination); every one must pass

use conformance::check;
use own_vectors::{check_actions, check_config, check_hooks, check_termination};

datatest_stable::harness! {
    { test = check, root = "../conformance", pattern = r"^(actions|config|images|status)/.*\.json$" },
    { test = check_actions, root = "tests/vectors", pattern = r"^actions/.*\.json$" },
    { test = check_config, root = "tests/vectors", pattern = r"^config/.*\.json$" },
    { test = check_hooks, root = "tests/vectors", pattern = r"^hooks/.*\.json$" },
    { test = check_termination, root = "tests/vectors", pattern = r"^termination/.*\.json$" },
}
