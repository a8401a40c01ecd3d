package io.gpuledger.model;

/**
 * Where capacity runs: the node and the instance it is, as bought. Every GPU sample, work report
 * and capacity notice of a node carries the same placement, so that they join on it.
 */
public record Placement(String host, String instanceId, String instanceType, String provider, String region,
        Lifecycle lifecycle) {

    public Placement {
        Check.identity("host", host);
        Check.identity("instanceId", instanceId);
        Check.identity("instanceType", instanceType);
        Check.identity("provider", provider);
        Check.identity("region", region);
        Check.present("lifecycle", lifecycle);
    }

    /** The placement of instance {@code instanceId}, node {@code host}, bought as {@code offer}. */
    public static Placement of(String host, String instanceId, Offer offer) {
        return new Placement(host, instanceId, offer.instanceType(), offer.provider(), offer.region(),
                offer.lifecycle());
    }

    public Offer offer() {
        return new Offer(provider, region, instanceType, lifecycle);
    }
}
