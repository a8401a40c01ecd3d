package io.gpuledger.ingest.agent;

import io.gpuledger.ingest.agent.progress.JobToken;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code gpu-ledger token}: makes the issuer's key pair ({@code keygen}) and signs the tokens that jobs
 * and hosts present at the agents of their nodes ({@code issue}; see {@link JobToken}).
 */
public final class TokenCommand {

    public static final String USAGE = """
            usage: gpu-ledger token keygen --private FILE
                     writes a new issuer private key to FILE (readable by its owner alone; never overwritten)
                     and prints its public key line, for the agents' progress.issuer-keys-file
                   gpu-ledger token issue --key FILE --node NODE [--node NODE ...] (--job JOB | --stopping)
                                          [--ttl DURATION]
                     prints a token for JOB's work reports (or for saying the instance stops) at the agents
                     of the nodes named, valid for DURATION (default 24h; s, m, h or d)
            """;
    private static final Duration DEFAULT_TTL = Duration.ofHours(24);
    private static final Pattern DURATION = Pattern.compile("(\\d+)([smhd])");

    private TokenCommand() {
    }

    /** Runs the command; the exit status: 0 done, 2 a usage error, 1 a key that cannot be read or written. */
    public static int run(String[] args, Clock clock, PrintStream out, PrintStream err) {
        try {
            if (args.length == 0) {
                throw new IllegalArgumentException("say keygen or issue");
            }
            Options options = Options.parse(args);
            switch (args[0]) {
                case "keygen" -> keygen(options, out);
                case "issue" -> out.println(issue(options, clock));
                default -> throw new IllegalArgumentException("unknown token command '" + args[0] + "'");
            }
            return 0;
        } catch (IllegalArgumentException e) {
            err.println("gpu-ledger token: " + e.getMessage());
            err.print(USAGE);
            return 2;
        } catch (IOException e) {
            err.println("gpu-ledger token: " + e.getMessage());
            return 1;
        }
    }

    private static void keygen(Options options, PrintStream out) throws IOException {
        Path file = Path.of(options.single("--private"));
        KeyPair pair = JobToken.newIssuerKey();
        try {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        } catch (FileAlreadyExistsException e) {
            throw new IOException(file + " exists already: an issuer key is never overwritten", e);
        } catch (UnsupportedOperationException e) {
            Files.createFile(file);
        }
        Files.writeString(file, JobToken.privateKeyLine(pair.getPrivate()) + "\n", StandardCharsets.UTF_8,
                StandardOpenOption.TRUNCATE_EXISTING);
        out.println(JobToken.publicKeyLine(pair.getPublic()));
    }

    private static String issue(Options options, Clock clock) throws IOException {
        Path keyFile = Path.of(options.single("--key"));
        PrivateKey key = JobToken.privateKey(Files.readString(keyFile, StandardCharsets.UTF_8));
        List<String> nodes = options.all("--node");
        if (nodes.isEmpty()) {
            throw new IllegalArgumentException("name the node (--node) whose agent takes the token, once per node");
        }
        Duration ttl = options.optional("--ttl").map(TokenCommand::duration).orElse(DEFAULT_TTL);
        Optional<String> job = options.optional("--job");
        boolean stopping = options.flags().contains("--stopping");
        if (job.isPresent() == stopping) {
            throw new IllegalArgumentException("give either --job JOB or --stopping");
        }
        var expires = clock.instant().plus(ttl);
        return JobToken.issue(key, stopping ? JobToken.Grant.stopping(nodes, expires)
                : JobToken.Grant.progress(job.get(), nodes, expires));
    }

    static Duration duration(String text) {
        Matcher matcher = DURATION.matcher(text.strip());
        if (!matcher.matches() || Long.parseLong(matcher.group(1)) == 0) {
            throw new IllegalArgumentException("--ttl " + text + ": a positive whole number of s, m, h or d");
        }
        long amount = Long.parseLong(matcher.group(1));
        return switch (matcher.group(2)) {
            case "s" -> Duration.ofSeconds(amount);
            case "m" -> Duration.ofMinutes(amount);
            case "h" -> Duration.ofHours(amount);
            default -> Duration.ofDays(amount);
        };
    }

    /** The options after the sub-command: {@code --name value} pairs and the flag {@code --stopping}. */
    private record Options(List<String[]> pairs, List<String> flags) {
        static Options parse(String[] args) {
            List<String[]> pairs = new ArrayList<>();
            List<String> flags = new ArrayList<>();
            for (int i = 1; i < args.length; i++) {
                String name = args[i];
                if (name.equals("--stopping")) {
                    flags.add(name);
                } else if (List.of("--private", "--key", "--node", "--job", "--ttl").contains(name)) {
                    if (i + 1 >= args.length) {
                        throw new IllegalArgumentException(name + " needs a value");
                    }
                    pairs.add(new String[] {name, args[++i]});
                } else {
                    throw new IllegalArgumentException("unknown option '" + name + "'");
                }
            }
            return new Options(pairs, flags);
        }

        List<String> all(String name) {
            return pairs.stream().filter(pair -> pair[0].equals(name)).map(pair -> pair[1]).toList();
        }

        Optional<String> optional(String name) {
            List<String> values = all(name);
            if (values.size() > 1) {
                throw new IllegalArgumentException(name + " given twice");
            }
            return values.stream().findFirst();
        }

        String single(String name) {
            return optional(name).orElseThrow(() -> new IllegalArgumentException(name + " is required"));
        }
    }
}
