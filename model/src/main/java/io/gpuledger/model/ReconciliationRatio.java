package io.gpuledger.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;

/**
 * What a reconciliation with the provider's bill found for one offer and billing account: the bill's effective
 * cost against the engine's estimate over the hours both have, in {@code [from, to)}. Keyed on
 * {@link Topics#RECONCILIATION} by {@link #key()}; the latest reconciliation of an offer and account is the one
 * to keep.
 *
 * @param billingAccountId the bill's account; {@code unknown} when its rows name none
 * @param ratio            effective over estimated cost: what the engine's price for the offer was off by
 */
public record ReconciliationRatio(
        @JsonProperty(required = true) String provider,
        @JsonProperty(required = true) String region,
        @JsonProperty(required = true) String instanceType,
        @JsonProperty(required = true) Lifecycle lifecycle,
        @JsonProperty(required = true) String billingAccountId,
        @JsonProperty(required = true) String currency,
        @JsonProperty(required = true) Instant from,
        @JsonProperty(required = true) Instant to,
        double estimated,
        double effective,
        double ratio,
        @JsonProperty(required = true) Instant reconciledAt) {

    public static final String UNKNOWN_ACCOUNT = "unknown";

    public ReconciliationRatio {
        Check.identity("provider", provider);
        Check.identity("region", region);
        Check.identity("instanceType", instanceType);
        Check.present("lifecycle", lifecycle);
        billingAccountId = billingAccountId == null || billingAccountId.isBlank() ? UNKNOWN_ACCOUNT
                : Check.identity("billingAccountId", billingAccountId);
        Check.currency("currency", currency);
        Check.instant("from", from);
        Check.instant("to", to);
        Check.nonNegative("estimated", estimated);
        Check.finite("effective", effective);
        Check.finite("ratio", ratio);
        Check.instant("reconciledAt", reconciledAt);
    }

    public Offer offer() {
        return new Offer(provider, region, instanceType, lifecycle);
    }

    /** {@code <offer key>|<account>}. */
    public String key() {
        return offer().key() + Check.KEY_SEPARATOR + billingAccountId;
    }
}
