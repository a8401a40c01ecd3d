package io.gpuledger.alerts;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Prometheus' own linter, {@code promtool}, run on metrics text as a scraper received it. */
final class Promtool {

    private Promtool() {
    }

    /** The problems {@code promtool check metrics} reports on {@code text}, one per line. */
    static List<String> checkMetrics(String text) throws IOException, InterruptedException {
        Process process = new ProcessBuilder("promtool", "check", "metrics").redirectErrorStream(true).start();
        try (OutputStream in = process.getOutputStream()) {
            in.write(text.getBytes(StandardCharsets.UTF_8));
        }
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException("promtool did not finish within 30 s");
        }
        return output.lines().filter(line -> !line.isBlank()).toList();
    }
}
