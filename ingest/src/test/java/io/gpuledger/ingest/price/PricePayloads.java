package io.gpuledger.ingest.price;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/** The published payloads under {@code src/test/resources/prices} (see ORIGINS.md there). */
public final class PricePayloads {

    private PricePayloads() {
    }

    public static String text(String name) {
        try (InputStream in = PricePayloads.class.getResourceAsStream("/prices/" + name)) {
            if (in == null) {
                throw new IllegalStateException("no fixture prices/" + name + " on the test classpath");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static Path path(String name) {
        try {
            return Path.of(PricePayloads.class.getResource("/prices/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
