package io.gpuledger.ingest.agent.usage;

/**
 * How the agent writes the job of a pod that none of its job labels names ({@code kubernetes.job-ids}). A pod's
 * name is unique only in its namespace: by its name alone (the default), pods of one name in two namespaces are one
 * job; by namespace and name they are two. Every source that names a job after its pod (dcgm-exporter's and HAMi's
 * {@code pod} label, the kubelet's pods, DRA claims) writes it the same way, so that they agree; a job's own reports
 * ({@code POST /v1/progress}) must name it as they do.
 */
public enum PodJobIds {
    /** The pod's name. */
    POD("pod"),
    /** The pod's namespace and name: {@code namespace/name}. */
    NAMESPACE_POD("namespace/pod");

    public static final String SETTING = "kubernetes.job-ids";

    private final String wire;

    PodJobIds(String wire) {
        this.wire = wire;
    }

    public static PodJobIds fromSetting(String value) {
        for (PodJobIds ids : values()) {
            if (ids.wire.equals(value)) {
                return ids;
            }
        }
        throw new IllegalArgumentException(SETTING + ": '" + value + "' is neither pod nor namespace/pod");
    }

    /** The job of the pod {@code name} in {@code namespace}: its name alone where the namespace is not known. */
    public String jobOf(String namespace, String name) {
        return this == NAMESPACE_POD && namespace != null && !namespace.isBlank() ? namespace + "/" + name : name;
    }
}
