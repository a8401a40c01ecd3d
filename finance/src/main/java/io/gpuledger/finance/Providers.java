package io.gpuledger.finance;

import java.util.Map;

/**
 * How FOCUS names a provider and its virtual-machine service, by the provider id GPU Ledger's placements carry.
 * The names are those the providers' own FOCUS exports use; an id not listed here is written as it is.
 */
final class Providers {

    /** {@code ProviderName} (also the publisher and invoice issuer of an instance-hour), then {@code ServiceName}. */
    private static final Map<String, String[]> NAMES = Map.of(
            "aws", new String[] {"AWS", "Amazon Elastic Compute Cloud"},
            "azure", new String[] {"Microsoft", "Virtual Machines"},
            "gcp", new String[] {"Google Cloud", "Compute Engine"},
            "oci", new String[] {"Oracle", "Compute"});

    private Providers() {
    }

    static String providerName(String provider) {
        String[] names = NAMES.get(provider);
        return names == null ? provider : names[0];
    }

    static String serviceName(String provider) {
        String[] names = NAMES.get(provider);
        return names == null ? "GPU instances" : names[1];
    }
}
