package io.gpuledger.ingest.agent.progress;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * The tokens that callers of the agent's writes present ({@code Authorization: Bearer <token>}),
 * read from a file (a mounted Kubernetes Secret, say): each non-blank line not starting with
 * {@code #} is a token, so that a new one can be added before the old one is removed. The file is
 * read again when it changes, so a rotated Secret takes effect without a restart. Tokens are
 * compared by their SHA-256 digests in constant time: neither a token's bytes nor its length
 * show in how long a refusal takes.
 */
public final class AccessToken {

    private static final String BEARER = "Bearer ";

    private final Path file;
    private final Consumer<String> problems;
    private volatile Loaded loaded;

    private record Loaded(FileTime modified, List<byte[]> digests) {
    }

    private AccessToken(Path file, Consumer<String> problems, Loaded loaded) {
        this.file = file;
        this.problems = problems;
        this.loaded = loaded;
    }

    /**
     * The tokens of {@code file}.
     *
     * @param problems told when the file, read again, cannot be used (the tokens read before stay)
     * @throws IllegalArgumentException when the file cannot be read or holds no token
     */
    public static AccessToken fromFile(Path file, Consumer<String> problems) {
        try {
            return new AccessToken(file, problems, load(file));
        } catch (IOException | IllegalArgumentException e) {
            throw new IllegalArgumentException("progress.token-file " + file + ": " + e.getMessage(), e);
        }
    }

    /** Whether an {@code Authorization} header value (null when absent) carries one of the tokens. */
    public boolean admits(String authorization) {
        if (authorization == null || !authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            return false;
        }
        byte[] presented = digest(authorization.substring(BEARER.length()).strip());
        boolean admitted = false;
        for (byte[] token : current().digests()) {
            // Every token is compared, whichever matches: the time taken does not say which.
            admitted |= MessageDigest.isEqual(presented, token);
        }
        return admitted;
    }

    private Loaded current() {
        Loaded before = loaded;
        FileTime modified = modifiedOrNull();
        if (Objects.equals(modified, before.modified())) {
            return before;
        }
        try {
            loaded = load(file);
        } catch (IOException | IllegalArgumentException e) {
            problems.accept("progress.token-file " + file + ": " + e.getMessage() + "; the tokens read before stay");
            // Not told again until the file changes once more.
            loaded = new Loaded(modified, before.digests());
        }
        return loaded;
    }

    private FileTime modifiedOrNull() {
        try {
            return Files.getLastModifiedTime(file);
        } catch (IOException e) {
            return null;
        }
    }

    private static Loaded load(Path file) throws IOException {
        FileTime modified = Files.getLastModifiedTime(file);
        List<byte[]> digests = new ArrayList<>();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            String token = line.strip();
            if (!token.isEmpty() && !token.startsWith("#")) {
                if (token.length() < 16) {
                    throw new IllegalArgumentException("a token shorter than 16 characters is too easy to guess");
                }
                digests.add(digest(token));
            }
        }
        if (digests.isEmpty()) {
            throw new IllegalArgumentException("holds no token");
        }
        return new Loaded(modified, List.copyOf(digests));
    }

    private static byte[] digest(String token) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }
}
