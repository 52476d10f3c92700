import { describe, expect, it } from "vitest";
import { apiDefaults, defaultPullPolicy, NODE_NAME } from "../src/defaults";
import type { Pod } from "../src/types";

describe("API defaults", () => {
  const pod: Pod = {
    metadata: { name: "web" },
    spec: {
      containers: [
        {
          name: "app",
          image: "nginx:1.27",
          ports: [{ containerPort: 80 }],
          livenessProbe: { httpGet: { port: 80 } },
          resources: { limits: { cpu: "500m", memory: "128Mi" }, requests: { cpu: "100m" } },
        },
      ],
      initContainers: [{ name: "init", image: "busybox" }],
    },
  };
  const d = apiDefaults(pod);

  it("fills what the kubelet relies on", () => {
    expect(d.spec).toMatchObject({
      enableServiceLinks: true,
      restartPolicy: "Always",
      dnsPolicy: "ClusterFirst",
      terminationGracePeriodSeconds: 30,
      nodeName: NODE_NAME,
    });
    expect(d.metadata).toMatchObject({ namespace: "default" });
    expect(d.metadata!.uid).toMatch(/^[0-9a-f]{8}-/);
    const c = d.spec!.containers[0]!;
    expect(c).toMatchObject({ terminationMessagePath: "/dev/termination-log", terminationMessagePolicy: "File", imagePullPolicy: "IfNotPresent" });
    expect(c.ports).toEqual([{ containerPort: 80, protocol: "TCP" }]);
    expect(c.livenessProbe).toEqual({ httpGet: { port: 80, path: "/", scheme: "HTTP" }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 });
    // Requests default to limits only where missing.
    expect(c.resources).toEqual({ limits: { cpu: "500m", memory: "128Mi" }, requests: { cpu: "100m", memory: "128Mi" } });
    expect(d.spec!.initContainers![0]!.imagePullPolicy).toBe("Always");
  });

  it("keeps what the manifest says and does not touch its input", () => {
    const explicit = apiDefaults({ metadata: { name: "x", uid: "u" }, spec: { restartPolicy: "Never", enableServiceLinks: false, containers: [] } });
    expect(explicit.spec).toMatchObject({ restartPolicy: "Never", enableServiceLinks: false });
    expect(explicit.metadata!.uid).toBe("u");
    expect(pod.spec!.restartPolicy).toBeUndefined();
  });

  it("pull policy follows the tag", () => {
    expect(defaultPullPolicy("nginx")).toBe("Always");
    expect(defaultPullPolicy("nginx:latest")).toBe("Always");
    expect(defaultPullPolicy("registry:5000/nginx")).toBe("Always");
    expect(defaultPullPolicy("registry:5000/nginx:1.2")).toBe("IfNotPresent");
    expect(defaultPullPolicy("nginx@sha256:abc")).toBe("IfNotPresent");
  });
});
