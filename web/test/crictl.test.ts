import { describe, expect, it } from "vitest";
import { snakeCase, toCrictl } from "../src/crictl";

describe("crictl form", () => {
  it("renames fields to proto names", () => {
    expect(snakeCase("logDirectory")).toBe("log_directory");
    expect(snakeCase("cpuCfsQuotaPeriodUs")).toBe("cpu_cfs_quota_period_us");
    expect(snakeCase("oomScoreAdj")).toBe("oom_score_adj");
    expect(snakeCase("CDIDevices")).toBe("CDI_devices");
    expect(snakeCase("uidMappings")).toBe("uidMappings");
  });
  it("keeps map keys, numbers enums", () => {
    const cfg = {
      metadata: { name: "web", attempt: 1 },
      logDirectory: "/var/log/pods/x",
      labels: { "io.kubernetes.pod.name": "web", camelKey: "v" },
      linux: { securityContext: { namespaceOptions: { network: "NODE", pid: "CONTAINER" } }, sysctls: { "net.ipv4.ip_forward": "1" } },
      portMappings: [{ protocol: "UDP", containerPort: 53 }],
      stopSignal: "SIGTERM",
    };
    expect(toCrictl(cfg)).toEqual({
      metadata: { name: "web", attempt: 1 },
      log_directory: "/var/log/pods/x",
      labels: { "io.kubernetes.pod.name": "web", camelKey: "v" },
      linux: { security_context: { namespace_options: { network: 2, pid: 1 } }, sysctls: { "net.ipv4.ip_forward": "1" } },
      port_mappings: [{ protocol: 1, container_port: 53 }],
      stop_signal: 23,
    });
  });
  it("numbers stop signals like the CRI enum", () => {
    expect(toCrictl({ stopSignal: "SIGRTMAX" })).toEqual({ stop_signal: 65 });
    expect(toCrictl({ stopSignal: "SIGRTMAXMINUS14" })).toEqual({ stop_signal: 51 });
    expect(toCrictl({ stopSignal: "SIGXFSZ" })).toEqual({ stop_signal: 34 });
  });
  it("writes env values as base64, as crictl decodes the cri-api's bytes", () => {
    expect(toCrictl({ envs: [{ key: "A", value: "abcd" }, { key: "B", value: { base64: "/wD+" } }, { key: "C" }] })).toEqual({
      envs: [{ key: "A", value: "YWJjZA==" }, { key: "B", value: "/wD+" }, { key: "C" }],
    });
  });
});
