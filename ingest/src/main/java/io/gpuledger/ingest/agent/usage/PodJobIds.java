package io.gpuledger.ingest.agent.usage;

/**
 * How the agent writes the job of a pod that none of its job labels names ({@code kubernetes.job-ids}). A pod's
 * name is unique only in its namespace: by its name alone (the default), pods of one name in two namespaces are one
 * job; by namespace and name they are two. By its workload, a pod is named after the controller that made it, as its
 * owner references give it (a Deployment's replicas, across rollouts, are one job; {@link PodWorkloads}). Every
 * source that names a job after its pod (dcgm-exporter's and HAMi's {@code pod} label, the kubelet's pods, DRA
 * claims) writes it the same way, so that they agree; a job's own reports ({@code POST /v1/progress}) must name it as
 * they do.
 */
public enum PodJobIds {
    /** The pod's name. */
    POD("pod", false, false),
    /** The pod's namespace and name: {@code namespace/name}. */
    NAMESPACE_POD("namespace/pod", true, false),
    /** The pod's workload's name, the pod's own where it has none. */
    WORKLOAD("workload", false, true),
    /** The pod's namespace and workload: {@code namespace/workload}. */
    NAMESPACE_WORKLOAD("namespace/workload", true, true);

    public static final String SETTING = "kubernetes.job-ids";

    private final String wire;
    private final boolean withNamespace;
    private final boolean byWorkload;

    PodJobIds(String wire, boolean withNamespace, boolean byWorkload) {
        this.wire = wire;
        this.withNamespace = withNamespace;
        this.byWorkload = byWorkload;
    }

    public static PodJobIds fromSetting(String value) {
        for (PodJobIds ids : values()) {
            if (ids.wire.equals(value)) {
                return ids;
            }
        }
        throw new IllegalArgumentException(SETTING + ": '" + value
                + "' is none of pod, namespace/pod, workload, namespace/workload");
    }

    /** Whether a pod is named after its workload, which only the kubelet's pod list gives. */
    public boolean byWorkload() {
        return byWorkload;
    }

    /** Whether a job id carries its namespace. */
    public boolean withNamespace() {
        return withNamespace;
    }

    /** How the setting is written. */
    public String wire() {
        return wire;
    }

    /**
     * The job of the pod, or of its workload, {@code name} in {@code namespace}: its name alone where the namespace is
     * not known.
     */
    public String jobOf(String namespace, String name) {
        return withNamespace && namespace != null && !namespace.isBlank() ? namespace + "/" + name : name;
    }
}
