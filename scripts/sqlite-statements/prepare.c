// The caller-miss statement in C against the system's SQLite: prepared, run and finalized on every call (what
// sqlite-nio does), kept and reset (what a statement cache does), and preparing alone. CPU ns per lookup.
//   prepare DATABASE SQL_FILE KEYS_FILE ITERATIONS
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double cpu_ns(void){struct timespec t;clock_gettime(CLOCK_PROCESS_CPUTIME_ID,&t);return t.tv_sec*1e9+t.tv_nsec;}
static char *slurp(const char*p){FILE*f=fopen(p,"rb");fseek(f,0,SEEK_END);long n=ftell(f);rewind(f);char*b=malloc(n+1);fread(b,1,n,f);b[n]=0;fclose(f);return b;}
int main(int argc,char**argv){
  sqlite3*db; if(sqlite3_open_v2(argv[1],&db,SQLITE_OPEN_READONLY,0)){puts("open");return 1;}
  char*sql=slurp(argv[2]); char*keys=slurp(argv[3]); int iters=atoi(argv[4]);
  static char*list[20000];int n=0; for(char*k=strtok(keys,"\n");k&&n<20000;k=strtok(0,"\n")) list[n++]=k;
  long sink=0;
  for(int mode=0;mode<3;mode++){
    sqlite3_stmt*kept=0; if(mode==1) sqlite3_prepare_v3(db,sql,-1,SQLITE_PREPARE_PERSISTENT,&kept,0);
    double t0=cpu_ns();
    for(int i=0;i<iters;i++){
      sqlite3_stmt*s=kept;
      if(mode==2){ s=0; sqlite3_prepare_v3(db,sql,-1,0,&s,0); sqlite3_finalize(s); continue; }
      if(!s) sqlite3_prepare_v3(db,sql,-1,0,&s,0);
      sqlite3_bind_text(s,1,list[i%n],-1,SQLITE_STATIC);
      while(sqlite3_step(s)==SQLITE_ROW){int c=sqlite3_column_count(s);for(int j=0;j<c;j++){const unsigned char*v=sqlite3_column_text(s,j);if(v)sink+=v[0];}}
      if(kept){sqlite3_reset(s);sqlite3_clear_bindings(s);} else sqlite3_finalize(s);
    }
    double t=(cpu_ns()-t0)/iters;
    printf("%s: %.0f ns per call\n", mode==0?"prepare, run, finalize each call":mode==1?"kept statement (reset and rebind)":"prepare and finalize alone", t);
    if(kept) sqlite3_finalize(kept);
  }
  fprintf(stderr,"%ld\n",sink); return 0;}
