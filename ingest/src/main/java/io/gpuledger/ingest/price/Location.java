package io.gpuledger.ingest.price;

import java.net.URI;
import java.nio.file.Path;
import java.util.Locale;

/** Where a price document is: a file, or an HTTP(S) URL. */
public record Location(String text) {

    public Location {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("a location is a file path or an http(s) URL, not blank");
        }
    }

    public boolean isHttp() {
        String lower = text.toLowerCase(Locale.ROOT);
        return lower.startsWith("http://") || lower.startsWith("https://");
    }

    /** @throws IllegalArgumentException when the text is not a URL even after quoting its spaces */
    public URI uri() {
        return uri(text);
    }

    /**
     * A URL as people and APIs write it, OData filters with spaces included
     * ({@code ?$filter=serviceName eq 'Virtual Machines'}): characters a URI may not hold are
     * percent-encoded, the rest is left as it is.
     */
    public static URI uri(String text) {
        StringBuilder quoted = new StringBuilder(text.length());
        for (char c : text.trim().toCharArray()) {
            if (c <= ' ' || c == '"' || c == '<' || c == '>' || c == '{' || c == '}' || c == '|' || c == '\\'
                    || c == '^' || c == '`') {
                quoted.append('%').append(String.format("%02X", (int) c));
            } else {
                quoted.append(c);
            }
        }
        return URI.create(quoted.toString());
    }

    public Path path() {
        return Path.of(text);
    }

    @Override
    public String toString() {
        return text;
    }
}
