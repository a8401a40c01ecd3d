package io.gpuledger.http;

import io.gpuledger.http.BoundedHttpServer.Malformed;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A request's line and headers, parsed from the bytes {@link HeadReader} gathered, and the first
 * bytes of the body that came with them. Parsing is apart from reading so that the rules of a
 * well-formed head (one framing, no repeated credentials) read in one place, whichever thread
 * gathered the bytes.
 *
 * @param headers by their names in lower case
 * @param rest    what arrived after the empty line that ends the head: the start of the body
 */
record RequestHead(String method, String path, Map<String, String> headers, byte[] rest) {

    /**
     * Where the head in {@code bytes[from, to)} ends: the index after its empty line, or -1 while
     * it has not arrived. A line ends with CRLF or a bare LF; {@code from} is past any empty lines
     * before the request line, which RFC 9112 lets a server skip.
     */
    static int end(byte[] bytes, int from, int to) {
        for (int i = from; i < to; i++) {
            if (bytes[i] != '\n') {
                continue;
            }
            if (i + 1 < to && bytes[i + 1] == '\n') {
                return i + 2;
            }
            if (i + 2 < to && bytes[i + 1] == '\r' && bytes[i + 2] == '\n') {
                return i + 3;
            }
        }
        return -1;
    }

    /** How many empty lines' bytes (CR and LF) come before the request line in {@code bytes[0, to)}. */
    static int leadingEmptyLines(byte[] bytes, int to) {
        int skipped = 0;
        while (skipped < to && (bytes[skipped] == '\r' || bytes[skipped] == '\n')) {
            skipped++;
        }
        return skipped;
    }

    /**
     * The head in {@code bytes[from, end)}, {@code end} as {@link #end} found it; the bytes from
     * there to {@code to} are the body's start.
     *
     * @throws Malformed with the status to answer
     */
    static RequestHead parse(byte[] bytes, int from, int end, int to) {
        String[] lines = new String(bytes, from, end - from, StandardCharsets.ISO_8859_1).split("\r?\n");
        String requestLine = lines[0];
        String[] parts = requestLine.split(" ");
        if (parts.length != 3 || !parts[2].startsWith("HTTP/1.")) {
            if (parts.length == 3 && parts[2].startsWith("HTTP/")) {
                throw new Malformed(505, "only HTTP/1.x is served");
            }
            throw new Malformed(400, "malformed request line '" + BoundedHttpServer.abbreviated(requestLine) + "'");
        }
        Map<String, String> headers = new HashMap<>();
        for (int i = 1; i < lines.length; i++) {
            String line = lines[i];
            int colon = line.indexOf(':');
            if (colon <= 0 || Character.isWhitespace(line.charAt(colon - 1))) {
                throw new Malformed(400, "malformed header line '" + BoundedHttpServer.abbreviated(line) + "'");
            }
            String name = line.substring(0, colon).toLowerCase(Locale.ROOT);
            String value = line.substring(colon + 1).strip();
            String before = headers.putIfAbsent(name, value);
            if (before != null && (name.equals("content-length") || name.equals("transfer-encoding")
                    || name.equals("authorization"))) {
                throw new Malformed(400, "header " + name + " given twice");
            }
        }
        if (headers.containsKey("transfer-encoding")) {
            if (headers.containsKey("content-length")) {
                throw new Malformed(400, "both Content-Length and Transfer-Encoding");
            }
            if (!headers.get("transfer-encoding").equalsIgnoreCase("chunked")) {
                throw new Malformed(501, "only the chunked transfer coding is served");
            }
        }
        String target = parts[1];
        int query = target.indexOf('?');
        String path = query < 0 ? target : target.substring(0, query);
        return new RequestHead(parts[0], path, headers, Arrays.copyOfRange(bytes, end, to));
    }
}
