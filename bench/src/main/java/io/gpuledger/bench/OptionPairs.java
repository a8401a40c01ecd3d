package io.gpuledger.bench;

import io.gpuledger.cli.UsageException;
import java.util.function.BiConsumer;

/** A command's options written as {@code --name value} pairs. */
final class OptionPairs {

    private OptionPairs() {
    }

    /** Hands each option and its value to {@code option}, in order; an option without a value is refused. */
    static void read(String[] args, BiConsumer<String, String> option) {
        for (int i = 0; i < args.length; i += 2) {
            if (i + 1 >= args.length) {
                throw new UsageException(args[i] + " needs a value");
            }
            option.accept(args[i], args[i + 1]);
        }
    }
}
