package io.gpuledger.finance;

import io.gpuledger.model.Check;

/**
 * The billing account FOCUS rows are written under. The engine's hours do not say which cloud account an instance
 * is billed to; finance names it (or takes the default) when it exports.
 *
 * @param id   {@code BillingAccountId}
 * @param name {@code BillingAccountName}
 */
public record FocusAccount(String id, String name) {

    /** Estimates not yet tied to an account of the provider's. */
    public static final FocusAccount DEFAULT = new FocusAccount("gpu-ledger", "GPU Ledger estimates");

    public FocusAccount {
        Check.identity("billing account id", id);
        Check.identity("billing account name", name);
    }
}
