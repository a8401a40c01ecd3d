package io.gpuledger.deploy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.zip.GZIPInputStream;

/**
 * An image tarball in the format {@code docker save} writes and {@code docker load}, {@code podman
 * load} and {@code skopeo} read (Jib's {@code buildTar}): {@code manifest.json}, the image config,
 * and one gzipped tar per layer. Read with a small tar reader of its own, so that the checks need
 * neither Docker nor a tar program.
 */
final class ImageTarball {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** A file, directory or link of the image's file system. */
    record Entry(String path, int mode, long size, char type) {
        boolean isDirectory() {
            return type == '5';
        }

        boolean isExecutable() {
            return (mode & 0111) == 0111;
        }
    }

    private final Path tarball;
    private final JsonNode manifest;
    private final JsonNode config;
    private final List<String> layers;
    private final Map<String, Entry> files;

    private ImageTarball(Path tarball, JsonNode manifest, JsonNode config, List<String> layers,
            Map<String, Entry> files) {
        this.tarball = tarball;
        this.manifest = manifest;
        this.config = config;
        this.layers = layers;
        this.files = files;
    }

    static ImageTarball read(Path tarball) throws IOException {
        Map<String, byte[]> small = new LinkedHashMap<>();
        try (InputStream in = new BufferedInputStream(Files.newInputStream(tarball))) {
            Tar.read(in, (entry, data) -> {
                if (entry.path().endsWith(".json")) {
                    small.put(entry.path(), data.readAllBytes());
                }
            });
        }
        JsonNode manifest = JSON.readTree(require(small, "manifest.json", tarball)).get(0);
        JsonNode config = JSON.readTree(require(small, manifest.get("Config").asText(), tarball));
        List<String> layers = new ArrayList<>();
        manifest.get("Layers").forEach(layer -> layers.add(layer.asText()));
        Map<String, Entry> files = new LinkedHashMap<>();
        forEachLayerFile(tarball, layers, (entry, data) -> files.put(entry.path(), entry));
        return new ImageTarball(tarball, manifest, config, layers, files);
    }

    /** The image's names, e.g. {@code gpu-ledger-agent:0.1.0-SNAPSHOT}. */
    List<String> repoTags() {
        List<String> tags = new ArrayList<>();
        manifest.get("RepoTags").forEach(tag -> tags.add(tag.asText()));
        return tags;
    }

    /** The {@code config} object of the image config: Entrypoint, Cmd, User, Env, ExposedPorts… */
    JsonNode runConfig() {
        return config.get("config");
    }

    JsonNode imageConfig() {
        return config;
    }

    /** Layer file names, which are their digests: the same layer in two images has the same name. */
    List<String> layers() {
        return layers;
    }

    /** Every path of the image's file system (the layers applied in order), without a leading slash. */
    Map<String, Entry> files() {
        return files;
    }

    /** Writes the image's file system under {@code root}, as a container runtime would lay it out. */
    void extractTo(Path root) throws IOException {
        forEachLayerFile(tarball, layers, (entry, data) -> {
            Path target = root.resolve(entry.path()).normalize();
            if (!target.startsWith(root)) {
                throw new IOException("entry outside the image root: " + entry.path());
            }
            if (entry.isDirectory()) {
                Files.createDirectories(target);
            } else if (entry.type() == '0' || entry.type() == '\0') {
                Files.createDirectories(target.getParent());
                try (OutputStream out = Files.newOutputStream(target)) {
                    data.transferTo(out);
                }
            } else {
                throw new IOException("unexpected entry type '" + entry.type() + "': " + entry.path());
            }
            Files.setPosixFilePermissions(target, permissions(entry.mode()));
        });
    }

    private static void forEachLayerFile(Path tarball, List<String> layers, Tar.Visitor visitor) throws IOException {
        for (String layer : layers) {
            try (InputStream in = new BufferedInputStream(Files.newInputStream(tarball))) {
                Tar.read(in, (entry, data) -> {
                    if (entry.path().equals(layer)) {
                        Tar.read(new GZIPInputStream(data), visitor);
                    }
                });
            }
        }
    }

    private static byte[] require(Map<String, byte[]> entries, String name, Path tarball) {
        byte[] data = entries.get(name);
        if (data == null) {
            throw new IllegalStateException(tarball + " has no " + name + " (entries: " + entries.keySet() + ")");
        }
        return data;
    }

    private static Set<PosixFilePermission> permissions(int mode) {
        Set<PosixFilePermission> set = EnumSet.noneOf(PosixFilePermission.class);
        PosixFilePermission[] bits = PosixFilePermission.values(); // OWNER_READ … OTHERS_EXECUTE
        for (int i = 0; i < 9; i++) {
            if ((mode & (0400 >> i)) != 0) {
                set.add(bits[i]);
            }
        }
        return set;
    }

    /** Reads ustar and POSIX (pax) tar streams: the forms Jib and {@code docker save} write. */
    static final class Tar {

        interface Visitor {
            /** {@code data} holds the entry's bytes; it need not be read to its end. */
            void visit(Entry entry, InputStream data) throws IOException;
        }

        private Tar() {
        }

        static void read(InputStream in, Visitor visitor) throws IOException {
            byte[] header = new byte[512];
            String paxPath = null;
            while (readFully(in, header)) {
                if (isZero(header)) {
                    return;
                }
                String name = text(header, 0, 100);
                int mode = (int) octal(header, 100, 8);
                long size = octal(header, 124, 12);
                char type = (char) header[156];
                String prefix = text(header, 345, 155);
                String path = paxPath != null ? paxPath : prefix.isEmpty() ? name : prefix + "/" + name;
                paxPath = null;
                Bounded data = new Bounded(in, size);
                if (type == 'x') {
                    paxPath = paxRecords(data.readAllBytes()).get("path");
                } else if (type != 'g') {
                    path = path.startsWith("./") ? path.substring(2) : path;
                    path = path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
                    visitor.visit(new Entry(path, mode, size, type), data);
                }
                data.skipRest();
                long padding = (512 - size % 512) % 512;
                in.skipNBytes(padding);
            }
        }

        private static Map<String, String> paxRecords(byte[] data) {
            Map<String, String> records = new LinkedHashMap<>();
            int at = 0;
            while (at < data.length) {
                int space = indexOf(data, (byte) ' ', at);
                int length = Integer.parseInt(new String(data, at, space - at, StandardCharsets.US_ASCII));
                String record = new String(data, space + 1, length - (space + 1 - at) - 1, StandardCharsets.UTF_8);
                int equals = record.indexOf('=');
                records.put(record.substring(0, equals), record.substring(equals + 1));
                at += length;
            }
            return records;
        }

        private static int indexOf(byte[] data, byte b, int from) {
            for (int i = from; i < data.length; i++) {
                if (data[i] == b) {
                    return i;
                }
            }
            throw new IllegalArgumentException("malformed pax record");
        }

        private static boolean readFully(InputStream in, byte[] block) throws IOException {
            int read = in.readNBytes(block, 0, block.length);
            if (read == 0) {
                return false;
            }
            if (read < block.length) {
                throw new IOException("truncated tar header");
            }
            return true;
        }

        private static boolean isZero(byte[] block) {
            for (byte b : block) {
                if (b != 0) {
                    return false;
                }
            }
            return true;
        }

        private static String text(byte[] header, int offset, int length) {
            int end = offset;
            while (end < offset + length && header[end] != 0) {
                end++;
            }
            return new String(header, offset, end - offset, StandardCharsets.UTF_8);
        }

        private static long octal(byte[] header, int offset, int length) {
            String digits = text(header, offset, length).trim();
            return digits.isEmpty() ? 0 : Long.parseLong(digits, 8);
        }
    }

    /** The bytes of one tar entry: reading stops at its end. */
    private static final class Bounded extends InputStream {
        private final InputStream in;
        private long left;

        Bounded(InputStream in, long size) {
            this.in = in;
            this.left = size;
        }

        @Override
        public int read() throws IOException {
            if (left <= 0) {
                return -1;
            }
            int b = in.read();
            if (b >= 0) {
                left--;
            }
            return b;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            if (left <= 0) {
                return -1;
            }
            int read = in.read(buffer, offset, (int) Math.min(length, left));
            if (read > 0) {
                left -= read;
            }
            return read;
        }

        void skipRest() throws IOException {
            in.skipNBytes(left);
            left = 0;
        }

        @Override
        public void close() {
            // the enclosing stream stays open
        }
    }
}
