package io.gpuledger.ingest.agent.usage;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

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

    /**
     * Pods of one name in several namespaces that {@link #POD} makes one job, each name said once with the setting
     * that tells them apart. Not for use by two threads at once.
     */
    public static final class SameNamed {

        private final Set<String> said = new HashSet<>();

        /**
         * What is left to say of the pods {@code namespacesByName} lists (each name a job was written as, with the
         * namespaces of its pods), written by {@code ids}: nothing under {@link #NAMESPACE_POD}.
         */
        public List<String> unsaid(PodJobIds ids, Map<String, Set<String>> namespacesByName) {
            List<String> unsaid = new ArrayList<>();
            if (ids != POD) {
                return unsaid;
            }
            namespacesByName.forEach((name, namespaces) -> {
                if (namespaces.size() > 1 && said.add(name)) {
                    unsaid.add("pods named " + name + " in namespaces " + String.join(", ", new TreeSet<>(namespaces))
                            + " count as one job '" + name + "'; " + SETTING + "=namespace/pod tells them apart");
                }
            });
            return unsaid;
        }
    }
}
