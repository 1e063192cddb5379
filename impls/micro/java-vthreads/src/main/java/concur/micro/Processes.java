package concur.micro;

import static concur.micro.Main.fail;

import concur.micro.Msg.Done;
import concur.micro.Msg.Signal;

/** What main and the processes of every benchmark do alike: wait for a signal, collect counts, join. */
final class Processes {
    private Processes() {}

    static void expect(Mailbox<Msg> mailbox, Signal signal, String who) {
        Msg got = mailbox.receive();
        if (got != signal) {
            fail(who + " expected " + signal + ", got " + got);
        }
    }

    static void awaitReady(Mailbox<Msg> main, int processes) {
        for (int i = 0; i < processes; i++) {
            expect(main, Signal.READY, "main");
        }
    }

    static Done awaitDone(Mailbox<Msg> main) {
        Msg got = main.receive();
        if (!(got instanceof Done done)) {
            fail("main expected a done message, got " + got);
            throw new AssertionError();
        }
        return done;
    }

    static void join(Thread... threads) {
        for (Thread t : threads) {
            try {
                t.join();
            } catch (InterruptedException e) {
                throw new IllegalStateException("main was interrupted", e);
            }
        }
    }
}
