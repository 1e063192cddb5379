pub mod refserver;
