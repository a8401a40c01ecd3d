package io.gpuledger.ingest.agent.progress;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.PublicKey;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * The public keys of the token issuer that the agent trusts ({@code progress.issuer-keys-file}), read
 * from a file (a mounted Kubernetes Secret or ConfigMap, say): each non-blank line not starting with
 * {@code #} is one key as {@code gpu-ledger token keygen} writes it, so that a new issuer key can be
 * added before the old one is removed. The file is read again when it changes, so a rotation takes
 * effect without a restart. The agent holds public keys only: a node whose agent is taken over can
 * check tokens, never make one.
 */
public final class IssuerKeys {

    private final Path file;
    private final Consumer<String> problems;
    private volatile Loaded loaded;

    private record Loaded(FileTime modified, List<PublicKey> keys) {
    }

    private IssuerKeys(Path file, Consumer<String> problems, Loaded loaded) {
        this.file = file;
        this.problems = problems;
        this.loaded = loaded;
    }

    /**
     * The keys of {@code file}.
     *
     * @param problems told when the file, read again, cannot be used (the keys read before stay)
     * @throws IllegalArgumentException when the file cannot be read, holds no key or a line that is not one
     */
    public static IssuerKeys fromFile(Path file, Consumer<String> problems) {
        try {
            return new IssuerKeys(file, problems, load(file));
        } catch (IOException | IllegalArgumentException e) {
            throw new IllegalArgumentException("progress.issuer-keys-file " + file + ": " + e.getMessage(), e);
        }
    }

    /** The keys now in the file, or those read before when it became unusable. */
    public List<PublicKey> current() {
        Loaded before = loaded;
        FileTime modified = modifiedOrNull();
        if (Objects.equals(modified, before.modified())) {
            return before.keys();
        }
        try {
            loaded = load(file);
        } catch (IOException | IllegalArgumentException e) {
            problems.accept("progress.issuer-keys-file " + file + ": " + e.getMessage()
                    + "; the keys read before stay");
            // Not told again until the file changes once more.
            loaded = new Loaded(modified, before.keys());
        }
        return loaded.keys();
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
        List<PublicKey> keys = new ArrayList<>();
        int number = 0;
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            number++;
            String key = line.strip();
            if (!key.isEmpty() && !key.startsWith("#")) {
                try {
                    keys.add(JobToken.publicKey(key));
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("line " + number + ": " + e.getMessage(), e);
                }
            }
        }
        if (keys.isEmpty()) {
            throw new IllegalArgumentException("holds no key");
        }
        return new Loaded(modified, List.copyOf(keys));
    }
}
