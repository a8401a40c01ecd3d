package io.gpuledger.cli;

/** {@code gpu-ledger agent}: the node agent. */
final class AgentCommand {

    private AgentCommand() {
    }

    static int run(String[] args) {
        throw new UsageException("agent: not available yet");
    }
}
