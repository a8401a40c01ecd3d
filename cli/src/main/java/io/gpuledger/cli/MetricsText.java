package io.gpuledger.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Reads the samples of one metric family out of Prometheus text exposition format. */
final class MetricsText {

    record Sample(Map<String, String> labels, double value) {
    }

    private MetricsText() {
    }

    static List<Sample> samples(String text, String family) {
        List<Sample> samples = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (line.startsWith(family + "{") || line.startsWith(family + " ")) {
                samples.add(parse(line, family.length()));
            }
        }
        return samples;
    }

    private static Sample parse(String line, int nameEnd) {
        Map<String, String> labels = new LinkedHashMap<>();
        int i = nameEnd;
        if (line.charAt(i) == '{') {
            i++;
            while (line.charAt(i) != '}') {
                int equals = line.indexOf('=', i);
                String name = line.substring(i, equals).trim();
                StringBuilder value = new StringBuilder();
                int j = equals + 2;
                for (; line.charAt(j) != '"'; j++) {
                    char c = line.charAt(j);
                    if (c == '\\') {
                        char escaped = line.charAt(++j);
                        value.append(escaped == 'n' ? '\n' : escaped);
                    } else {
                        value.append(c);
                    }
                }
                labels.put(name, value.toString());
                i = j + 1;
                if (line.charAt(i) == ',') {
                    i++;
                }
            }
            i++;
        }
        String[] rest = line.substring(i).trim().split("\\s+");
        return new Sample(labels, Double.parseDouble(rest[0]));
    }
}
