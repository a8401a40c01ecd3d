package io.gpuledger.cli;

import io.gpuledger.ingest.agent.AgentMain;

/** {@code gpu-ledger agent}: the node agent (see {@link AgentMain}). */
final class AgentCommand {

    private AgentCommand() {
    }

    static int run(String[] args) {
        return AgentMain.run(args, System.getenv(), System.out, System.err);
    }
}
