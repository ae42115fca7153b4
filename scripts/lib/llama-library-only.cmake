# Given to llama-cpp-python's build as CMAKE_PROJECT_llama.cpp_INCLUDE: read right after llama.cpp's own
# project() call, before its options. llama-cpp-python forces llama.cpp's "common" library on (chat
# templates, argument parsing, downloads: the code of llama.cpp's programs), but its Python bindings load
# only libllama and ggml. This plain variable hides that forced setting inside llama.cpp's folder, so
# common is neither compiled (about half of the compile) nor shipped in the wheel (about 14 MB).
set(LLAMA_BUILD_COMMON OFF)
