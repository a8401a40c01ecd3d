package io.gpuledger.ingest.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * What a Kubernetes API server stand-in answers for the DRA lists of node {@code gpu-node-7}: files under
 * {@code src/test/resources/stand-ins/kubernetes}, whose ORIGINS.md says where their shape comes from.
 */
public final class KubernetesApiStandIn {

    /** The agent's request for the node's ResourceSlices, as the stand-in server records it. */
    public static final String SLICES_PATH =
            "GET /apis/resource.k8s.io/v1/resourceslices?fieldSelector=spec.nodeName%3Dgpu-node-7&limit=500"
            + "&resourceVersion=0";
    /** Its request for every ResourceClaim. */
    public static final String CLAIMS_PATH = "GET /apis/resource.k8s.io/v1/resourceclaims?limit=500&resourceVersion=0";
    /** Its request for the next page of claims after the first. */
    public static final String CLAIMS_NEXT_PATH = "GET /apis/resource.k8s.io/v1/resourceclaims?limit=500&continue=";
    /** The GPU whose claim is reserved for one pod, ranker-7d9f in search. */
    public static final String ONE_POD_GPU = "GPU-e82ab913-5b1a-2c1e-9b0a-1f6e4c1a7d01";
    /** That pod's UID. */
    public static final String RANKER_POD = "0f1d2b3c-4a5b-6c7d-8e9f-0a1b2c3d4e5f";
    /** The claim made for that pod from a template, as its status names it. */
    public static final String RANKER_CLAIM = "ranker-7d9f-gpu-q2x8m";

    private KubernetesApiStandIn() {
    }

    public static String slices() {
        return read("resourceslices-gpu-nvidia-com-node.json");
    }

    public static String claims() {
        return read("resourceclaims-gpu-nvidia-com.json");
    }

    /** The parent GPU of the MIG node's devices ({@link #migSlices()}). */
    public static final String MIG_PARENT_GPU = "GPU-5d3c1a2b-8e4f-4a6b-9c7d-2e1f0a9b8c71";

    /** The node's slices where its GPU is split by static MIG into four devices. */
    public static String migSlices() {
        return read("resourceslices-gpu-nvidia-com-mig-node.json");
    }

    /** Claims of two of those devices, each for one pod. */
    public static String migClaims() {
        return read("resourceclaims-gpu-nvidia-com-mig.json");
    }

    /** The agent's request for one claim, as the stand-in server records it. */
    public static String claimPath(String namespace, String name) {
        return "GET /apis/resource.k8s.io/v1/namespaces/" + namespace + "/resourceclaims/" + name
                + "?resourceVersion=0";
    }

    /** The claim of {@link #claims()} named {@code name}, as the API server answers a get of it. */
    public static String claim(String name) {
        try {
            for (JsonNode claim : new ObjectMapper().readTree(claims()).path("items")) {
                if (claim.path("metadata").path("name").asText().equals(name)) {
                    return claim.toString();
                }
            }
            throw new IllegalArgumentException("no claim " + name + " in the stand-in's list");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String read(String file) {
        try (InputStream in = KubernetesApiStandIn.class.getResourceAsStream("/stand-ins/kubernetes/" + file)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
