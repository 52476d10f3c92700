//! `plan --emit-crictl DIR`: the plan's CRI configs as files for `crictl runp` and
//! `crictl create` (`pod-config.json`, `container-<name>.json`).

use std::fs;
use std::path::{Path, PathBuf};

use podplan_core::config::crictl;
use podplan_core::Plan;

use super::exit::CliError;

/// The sandbox config file's name.
pub const SANDBOX_FILE: &str = "pod-config.json";

/// One file to write.
#[derive(Debug, Clone, PartialEq)]
pub struct CrictlFile {
    /// File name inside the target directory.
    pub name: String,
    /// The document.
    pub document: serde_json::Value,
}

/// The plan's configs as crictl's input documents (proto field names, enums as numbers:
/// what crictl's loader decodes), with their file names.
pub fn crictl_files(plan: &Plan) -> Result<Vec<CrictlFile>, CliError> {
    let Some(sandbox) = plan.sandbox_config.as_ref() else {
        return Err(CliError::usage(
            "--emit-crictl: this plan has no sandbox config (the sync neither creates a \
             sandbox nor starts a container), so there is nothing for crictl to run",
        ));
    };
    let mut files = vec![CrictlFile {
        name: SANDBOX_FILE.to_string(),
        document: crictl::sandbox_json(sandbox),
    }];
    for entry in &plan.container_configs {
        if !is_safe_file_part(&entry.name) {
            return Err(CliError::usage(format!(
                "--emit-crictl: container name {:?} cannot be used in a file name",
                entry.name
            )));
        }
        files.push(CrictlFile {
            name: format!("container-{}.json", entry.name),
            document: crictl::container_json(&entry.config),
        });
    }
    Ok(files)
}

/// Container names are DNS labels; refuse anything that could leave the directory.
fn is_safe_file_part(name: &str) -> bool {
    !name.is_empty()
        && name != "."
        && name != ".."
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// Writes the files into `dir` (created if missing); returns the paths written.
pub fn emit(plan: &Plan, dir: &Path) -> Result<Vec<PathBuf>, CliError> {
    let files = crictl_files(plan)?;
    fs::create_dir_all(dir)
        .map_err(|e| CliError::Io(format!("cannot create {}: {e}", dir.display())))?;
    let mut written = Vec::with_capacity(files.len());
    for file in files {
        let path = dir.join(&file.name);
        let mut text = serde_json::to_string_pretty(&file.document)
            .map_err(|e| CliError::Io(format!("cannot serialise {}: {e}", file.name)))?;
        text.push('\n');
        fs::write(&path, text)
            .map_err(|e| CliError::Io(format!("cannot write {}: {e}", path.display())))?;
        written.push(path);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_sandbox_config_is_a_clear_error() {
        let err = crictl_files(&Plan::default()).unwrap_err();
        assert!(err.to_string().contains("no sandbox config"), "{err}");
    }

    #[test]
    fn one_file_per_container_config() {
        let plan: Plan = serde_json::from_value(serde_json::json!({
            "actions": {
                "killPod": false, "createSandbox": true, "sandboxId": "", "attempt": 0,
                "initContainersToStart": [0], "containersToStart": [0],
                "containersToKill": {}, "ephemeralContainersToStart": [],
                "updatePodResources": false, "updatePodLevelResources": false
            },
            "sandboxConfig": {"metadata": {"name": "web"}},
            "containerConfigs": [
                {"name": "init", "type": "init", "restartCount": 0, "config": {}},
                {"name": "app", "type": "regular", "restartCount": 0,
                 "config": {"image": {"image": "nginx"}}}
            ]
        }))
        .unwrap();
        let files = crictl_files(&plan).unwrap();
        let names: Vec<_> = files.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "pod-config.json",
                "container-init.json",
                "container-app.json"
            ]
        );
        assert_eq!(
            files.get(2).map(|f| &f.document["image"]["image"]),
            Some(&serde_json::json!("nginx"))
        );
    }

    #[test]
    fn env_values_are_base64_as_crictl_decodes_bytes() {
        let plan: Plan = serde_json::from_value(serde_json::json!({
            "actions": {
                "killPod": false, "createSandbox": true, "sandboxId": "", "attempt": 0,
                "initContainersToStart": [], "containersToStart": [0],
                "containersToKill": {}, "ephemeralContainersToStart": [],
                "updatePodResources": false, "updatePodLevelResources": false
            },
            "sandboxConfig": {"metadata": {"name": "web"}},
            "containerConfigs": [
                {"name": "app", "type": "regular", "restartCount": 0,
                 "config": {"envs": [{"key": "A", "value": "abcd"},
                                     {"key": "B", "value": {"base64": "/wD+"}}]}}
            ]
        }))
        .unwrap();
        let files = crictl_files(&plan).unwrap();
        let envs = &files[1].document["envs"];
        assert_eq!(
            envs[0],
            serde_json::json!({"key": "A", "value": "YWJjZA=="})
        );
        assert_eq!(envs[1], serde_json::json!({"key": "B", "value": "/wD+"}));
    }

    #[test]
    fn hostile_names_are_refused() {
        assert!(!is_safe_file_part("../x"));
        assert!(!is_safe_file_part(".."));
        assert!(!is_safe_file_part("a/b"));
        assert!(is_safe_file_part("app-1"));
    }
}
