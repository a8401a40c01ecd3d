package io.gpuledger.ingest.sim;

import java.nio.charset.StandardCharsets;
import java.util.UUID;

/**
 * How simulated capacity is named: shaped like the clouds' and nvidia-smi's own identifiers, and
 * derived from the seed and a serial number only, so a replacement instance gets fresh names that
 * are still the same on every run.
 */
final class Names {

    private Names() {
    }

    /** AWS-style {@code i-0…} ids on AWS, short {@code ins-…} ids elsewhere. */
    static String instanceId(String provider, long seed, int serial) {
        String hex = UUID.nameUUIDFromBytes((provider + seed + "/" + serial).getBytes(StandardCharsets.UTF_8))
                .toString().replace("-", "");
        return provider.equals("aws") ? "i-0" + hex.substring(0, 16) : "ins-" + hex.substring(0, 8);
    }

    static String host(int serial) {
        return String.format("gpu-node-%05d", serial);
    }

    /** nvidia-smi's form: {@code GPU-} and a UUID. */
    static String gpuUuid(String instanceId, int index) {
        return "GPU-" + UUID.nameUUIDFromBytes((instanceId + "/gpu/" + index).getBytes(StandardCharsets.UTF_8));
    }
}
