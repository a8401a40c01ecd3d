package io.gpuledger.ingest.agent;

import io.gpuledger.ingest.agent.cloud.AwsImds;
import io.gpuledger.ingest.agent.cloud.AzureMetadata;
import io.gpuledger.ingest.agent.cloud.CloudIdentity;
import io.gpuledger.ingest.agent.cloud.CloudMetadata;
import io.gpuledger.ingest.agent.cloud.GcpMetadata;
import io.gpuledger.model.InvalidRecordException;
import io.gpuledger.model.Lifecycle;
import io.gpuledger.model.Placement;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Who this node is: from the cloud's metadata service when there is one, else from the
 * configuration. A reservation is a billing arrangement the instance cannot see, so
 * {@code lifecycle=reserved} in the configuration wins over what the cloud says.
 */
public final class Identity {

    /** The node's placement, and the metadata service it came from (for notices), if any. */
    public record Resolved(Placement placement, Optional<CloudMetadata> cloud) {
    }

    private Identity() {
    }

    public static Resolved resolve(AgentConfig config) {
        Duration timeout = Duration.ofMillis(700);
        List<CloudMetadata> candidates = new ArrayList<>();
        String cloud = config.text("cloud").toLowerCase(Locale.ROOT);
        switch (cloud) {
            case "aws" -> candidates.add(new AwsImds(config.text("aws.imds-url"), timeout));
            case "gcp" -> candidates.add(new GcpMetadata(config.text("gcp.metadata-url"), timeout));
            case "azure" -> candidates.add(new AzureMetadata(config.text("azure.metadata-url"), timeout));
            case "auto" -> {
                candidates.add(new AwsImds(config.text("aws.imds-url"), timeout));
                candidates.add(new GcpMetadata(config.text("gcp.metadata-url"), timeout));
                candidates.add(new AzureMetadata(config.text("azure.metadata-url"), timeout));
            }
            case "none" -> {
            }
            default -> throw new IllegalArgumentException("cloud must be aws, gcp, azure, none or auto, was '" + cloud
                    + "'");
        }
        for (CloudMetadata metadata : candidates) {
            Optional<CloudIdentity> identity = metadata.identity();
            if (identity.isPresent()) {
                return new Resolved(placement(config, identity.get()), Optional.of(metadata));
            }
        }
        if (!cloud.equals("auto") && !cloud.equals("none")) {
            throw new IllegalArgumentException("cloud=" + cloud + " but its metadata service did not answer");
        }
        return new Resolved(placement(config, null), Optional.empty());
    }

    static Placement placement(AgentConfig config, CloudIdentity cloud) {
        String host = config.get("host").orElseGet(() -> cloud != null && cloud.hostname() != null
                ? cloud.hostname() : localHostName());
        String instanceId = config.get("instance-id").orElse(cloud != null && cloud.instanceId() != null
                ? cloud.instanceId() : host);
        String instanceType = config.get("instance-type").orElse(cloud == null ? null : cloud.instanceType());
        String provider = config.get("provider").orElse(cloud == null ? null : cloud.provider());
        String region = config.get("region").orElse(cloud == null ? null : cloud.region());
        Lifecycle lifecycle = config.get("lifecycle").map(Identity::lifecycle)
                .orElse(cloud != null && cloud.lifecycle() != null ? cloud.lifecycle() : null);
        List<String> missing = new ArrayList<>();
        if (instanceType == null) {
            missing.add("instance-type");
        }
        if (provider == null) {
            missing.add("provider");
        }
        if (region == null) {
            missing.add("region");
        }
        if (lifecycle == null) {
            missing.add("lifecycle");
        }
        if (!missing.isEmpty()) {
            throw new IllegalArgumentException("no cloud metadata service answered and the configuration lacks "
                    + missing + ": set them in the config file or as "
                    + missing.stream().map(AgentConfig::envName).toList());
        }
        try {
            return new Placement(host, instanceId, instanceType, provider, region, lifecycle);
        } catch (InvalidRecordException e) {
            throw new IllegalArgumentException("node identity: " + e.getMessage(), e);
        }
    }

    private static Lifecycle lifecycle(String value) {
        try {
            return Lifecycle.fromWire(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("lifecycle: " + e.getMessage(), e);
        }
    }

    private static String localHostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            String fromEnv = System.getenv("HOSTNAME");
            return fromEnv == null || fromEnv.isBlank() ? "localhost" : fromEnv;
        }
    }
}
