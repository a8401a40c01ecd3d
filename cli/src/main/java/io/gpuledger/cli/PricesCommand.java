package io.gpuledger.cli;

/** {@code gpu-ledger prices}: publishes price feeds to {@code pricing.quotes.v1}. */
final class PricesCommand {

    private PricesCommand() {
    }

    static int run(String[] args) {
        throw new UsageException("prices: not available yet");
    }
}
