package io.gpuledger.ingest.agent.cloud;

import io.gpuledger.model.Lifecycle;

/** What a cloud's metadata service says about the instance the agent runs on; fields may be null. */
public record CloudIdentity(String provider, String instanceId, String instanceType, String region,
        Lifecycle lifecycle, String hostname) {
}
