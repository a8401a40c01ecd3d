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

    /**
     * The offer of a key written by {@link #key()} (a pool roll-up's id).
     *
     * @throws InvalidRecordException when the key does not have its four parts
     */
    public static Offer fromKey(String key) {
        String[] parts = key.split(java.util.regex.Pattern.quote(String.valueOf(Check.KEY_SEPARATOR)), -1);
        if (parts.length != 4) {
            throw new InvalidRecordException("pool", "has four parts provider|region|instanceType|lifecycle, not '"
                    + key + "'");
        }
        return new Offer(parts[0], parts[1], parts[2], Lifecycle.fromWire(parts[3]));
    }

    /** Whether {@code usage}'s instance is of this offer, without an Offer made for the window. */
    public boolean isOfferOf(GpuUsage usage) {
        Placement where = usage.placement();
        return provider.equals(where.provider()) && region.equals(where.region())
                && instanceType.equals(where.instanceType()) && lifecycle == where.lifecycle();
    }

    /** {@code provider|region|instanceType|lifecycle}: the prefix of every price-version key of this offer. */
    public String key() {
        return provider + Check.KEY_SEPARATOR + region + Check.KEY_SEPARATOR + instanceType
                + Check.KEY_SEPARATOR + lifecycle.wire();
    }
}
