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

    /** A process's final count, sent to main; {@code pair} is -1 outside pairs. */
    record Done(int pair, long count) implements Msg {}

    /** The final count of pairs' B, whose A sends a {@link Done}. */
    record Echoed(int pair, long pings) implements Msg {}
}
