package io.gpuledger.model;

/**
 * What a price is quoted for: one instance type, bought one way, in one region of one provider.
 * Telemetry names its offer so that the cost engine can find the price in force.
 */
public record Offer(String provider, String region, String instanceType, Lifecycle lifecycle) {

    public Offer {
        Check.identity("provider", provider);
        Check.identity("region", region);
        Check.identity("instanceType", instanceType);
        Check.present("lifecycle", lifecycle);
    }

    /** {@code provider|region|instanceType|lifecycle}: the prefix of every price-version key of this offer. */
    public String key() {
        return provider + Check.KEY_SEPARATOR + region + Check.KEY_SEPARATOR + instanceType
                + Check.KEY_SEPARATOR + lifecycle.wire();
    }
}
