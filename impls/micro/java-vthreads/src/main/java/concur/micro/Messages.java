package concur.micro;

/**
 * Every message a process or main receives. One sealed type per program keeps
 * each receive a pattern match, as an actor's would be; the records are
 * allocated per send, like any JVM message object.
 */
sealed interface Msg {
    /** Payload-free control messages of spec/MICRO.md §4: ready, go, ack, stop, stopped. */
    enum Signal implements Msg { READY, GO, ACK, STOP, STOPPED }

    /** One pingping message: its number and a fresh payload, shared by reference. */
    record Parcel(int k, byte[] data) implements Msg {}

    record Ping(long k) implements Msg {}

    record Pong(long k) implements Msg {}

    /** A process's final count (in supervised, a pair's, from its supervisor), sent to main; {@code pair} is -1 outside pairs and supervised. */
    record Done(int pair, long count) implements Msg {}

    /** The final count of pairs' B, whose A sends a {@link Done}. */
    record Echoed(int pair, long pings) implements Msg {}

    /**
     * supervised: the replacement of the process that kill number {@code kill}
     * ended runs, {@code ns} after the kill; {@code afterStop} if main had
     * already set the stop flag (a late restart, §4.7).
     */
    record Restarted(int kill, long ns, boolean afterStop) implements Msg {}
}
