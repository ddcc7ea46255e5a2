fn main() {
    watchlab::run();
}
