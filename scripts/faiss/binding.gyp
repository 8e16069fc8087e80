# binding.gyp for faiss-node 0.5.1 against a system faiss (Debian libfaiss-dev, static libfaiss.a).
# Copied over node_modules/faiss-node/binding.gyp by scripts/setup-faiss.sh; the upstream
# package builds with cmake-js and a git clone of faiss instead, which needs internet.
{
  "targets": [
    {
      "target_name": "faiss-node",
      "sources": ["src/faiss.cc"],
      "include_dirs": [
        "<!(node -p \"require('node-addon-api').include_dir\")",
        "<!(node -p \"process.env.FAISS_INCLUDE_DIR || '/usr/include'\")"
      ],
      "defines": ["NAPI_VERSION=6", "NAPI_CPP_EXCEPTIONS"],
      "cflags!": ["-fno-exceptions", "-fno-rtti"],
      "cflags_cc!": ["-fno-exceptions", "-fno-rtti", "-std=gnu++17", "-std=gnu++14"],
      "cflags_cc": ["-std=c++17", "-fexceptions", "-frtti", "-fopenmp", "-O3"],
      "ldflags": ["-fopenmp"],
      "libraries": ["<!(node -p \"process.env.FAISS_STATIC_LIB || '/usr/lib/x86_64-linux-gnu/libfaiss.a'\")", "-lblas", "-llapack", "-lgomp"]
    }
  ]
}
